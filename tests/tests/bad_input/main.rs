//! Bad input over HTTP (issue #27): a corpus of malformed requests, each
//! answered with its 4xx `Status` and changing nothing; seeded random
//! mutations of valid bodies; and the peak memory a single large request
//! costs the server.

mod corpus;
mod fixtures;
mod memory;
mod mutation;

#[test]
fn malformed_requests_get_their_status_and_change_nothing() {
    let s = fixtures::server();
    let cases = corpus::all();
    let failures: Vec<String> = cases.iter().filter_map(|c| corpus::check(&s, c)).collect();
    assert!(
        failures.is_empty(),
        "{} of {} cases failed:\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n")
    );
    // The fixtures are all still there, and the server is healthy.
    for path in [
        fixtures::CM,
        fixtures::EVENT,
        fixtures::POD,
        fixtures::WIDGET,
    ] {
        assert_eq!(s.get(path).status, 200, "{path}");
    }
    assert_eq!(s.get("/readyz").status, 200);
}
