//! CEL: expressions compiled and evaluated against a bounded budget, and
//! CRD schemas (their `x-kubernetes-validations` rules compiled, costed and
//! run against objects).

use cairn_apiserver::api::cel::{Expression, RUNTIME_CEL_COST_BUDGET, validate_rules};
use cairn_apiserver::api::schema::Schema;
use serde_json::{Value, json};

use crate::mutate::{corpus, rounds, run, run_rounds};

fn claims() -> Value {
    json!({
        "sub": "alice", "iss": "https://issuer.example", "aud": ["cairn", "other"],
        "groups": ["dev", "ops", "dev"], "email": "alice@example.com", "email_verified": true,
        "exp": 1_900_000_000_i64, "nested": {"a": {"b": [1, 2.5, "three", null]}},
        "big": 18_446_744_073_709_551_615_u64, "neg": -9_223_372_036_854_775_808_i64,
    })
}

#[test]
fn cel_expressions_compile_and_evaluate_within_budget() {
    let claims = claims();
    let user = json!({"username": "alice", "uid": "1", "groups": ["a"], "extra": {"k": ["v"]}});
    // A compile parses on a fresh thread with a large stack: tens of
    // milliseconds in a debug build, so this target takes a tenth of the rounds.
    run_rounds("cel", &corpus("cel"), rounds().div_ceil(10), |input| {
        let source = String::from_utf8_lossy(input);
        let Ok(expression) = Expression::compile(&source, &["claims", "user"]) else {
            return;
        };
        let mut budget = RUNTIME_CEL_COST_BUDGET;
        let variables = [("claims", &claims), ("user", &user)];
        let _ = expression.evaluate(&variables, &mut budget);
        let _ = expression.evaluate_verbatim(&variables, &mut budget);
        assert!(budget <= RUNTIME_CEL_COST_BUDGET, "the budget only shrinks");
    });
}

#[test]
fn crd_schemas_and_their_rules_load_and_run_or_fail_cleanly() {
    let objects: Vec<Value> = corpus("patch_target")
        .iter()
        .map(|seed| serde_json::from_slice(seed).expect("objects are JSON"))
        .collect();
    run("crd_schema", |input| {
        let Ok(doc) = serde_json::from_slice::<Value>(input) else {
            return;
        };
        let Ok(schema) = Schema::from_openapi(&doc) else {
            return;
        };
        for obj in &objects {
            let _ = validate_rules(&schema, obj, Some(obj));
            let _ = validate_rules(&schema, obj, None);
        }
    });
}
