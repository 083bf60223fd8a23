"""Parses a /metrics page with the official Python `prometheus_client`
parsers and prints its families as JSON, for the Rust test to check.

Usage: metrics_families.py <page-file> <text|openmetrics>
"""
import json
import sys

from prometheus_client.openmetrics.parser import text_string_to_metric_families as openmetrics
from prometheus_client.parser import text_string_to_metric_families as prometheus_text


def main():
    path, fmt = sys.argv[1], sys.argv[2]
    with open(path, encoding="utf-8") as f:
        page = f.read()
    parse = openmetrics if fmt == "openmetrics" else prometheus_text
    families = []
    for family in parse(page):
        families.append({
            "name": family.name,
            "type": family.type,
            "help": family.documentation,
            "samples": [
                {"name": s.name, "labels": s.labels, "value": s.value} for s in family.samples
            ],
        })
    print(json.dumps(families))


if __name__ == "__main__":
    main()
