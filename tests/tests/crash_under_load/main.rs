//! Crash under load: the real binary on one data directory, driven by
//! several clients (creates, preconditioned updates, merge, strategic and
//! apply patches, deletes with finalizers, graceful pod deletion,
//! deletecollection, a custom resource) and watchers, is killed with
//! SIGKILL at seeded random moments, or aborted by an engine failpoint, again and again. After each
//! restart every acknowledged write is there with its resourceVersion and
//! content, each cut-off request left its object before or after, and the
//! watches resumed from the last resourceVersion seen miss and repeat
//! nothing; at the end `cairn-store verify` is clean. The failpoint test
//! also cuts `cairn-store snapshot save` short before its rename.
//! `CAIRN_CRASH_ROUNDS` (default 30) and `CAIRN_CRASH_SEED` set the
//! length and the moments.

mod checker_tests;
mod kinds;
mod ledger;
mod process;
mod store_tool;
mod traffic;
mod watching;

use std::collections::BTreeMap;
use std::path::Path;
use std::time::{Duration, Instant};

use cairn_tests::client;
use serde_json::{Value, json};

use kinds::{GADGETS, Kind, manifest};
use ledger::State;
use process::{Process, kill_9};
use traffic::Client;
use watching::{Watch, list_revision};

const CLIENTS: usize = 4;

fn env_number(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// How a round ends.
#[derive(Clone, Copy)]
enum Crash<'a> {
    /// SIGKILL after this long.
    Kill(Duration),
    /// An engine failpoint aborts the server; SIGKILL if it was not reached
    /// within the duration.
    Failpoint(&'a str, Duration),
}

/// Everything the campaign knows, over all rounds.
struct Campaign {
    data_dir: std::path::PathBuf,
    args: Vec<&'static str>,
    clients: Vec<Client>,
    watches: Vec<Watch>,
    anomalies: Vec<String>,
    runs: usize,
    /// Requests cut off by a crash: (found applied, found not applied).
    cut_off: (u64, u64),
}

impl Campaign {
    /// The first run: installs the custom resource and starts the watches
    /// from the collections' current revisions.
    fn new(data_dir: &Path, args: Vec<&'static str>, seed: u64, watch: bool) -> Campaign {
        let p = Process::start(data_dir, &args, None, 0);
        install_crd(p.port);
        let mut watches = Vec::new();
        if watch {
            for kind in Kind::ALL {
                let list = get(p.port, kind.collection());
                watches.push(Watch::new(kind, list_revision(&list)));
            }
        }
        p.kill();
        Campaign {
            data_dir: data_dir.to_path_buf(),
            args,
            clients: (0..CLIENTS).map(|id| Client::new(id, seed)).collect(),
            watches,
            anomalies: Vec::new(),
            runs: 1,
            cut_off: (0, 0),
        }
    }

    /// Starts the server and checks every ledger against what it lists.
    fn restart(&mut self, failpoint: Option<&str>) -> Process {
        let p = Process::start(&self.data_dir, &self.args, failpoint, self.runs);
        self.runs += 1;
        let mut listed = BTreeMap::new();
        for collection in Kind::ALL.map(Kind::collection) {
            let list = get(p.port, collection);
            for item in list["items"].as_array().into_iter().flatten() {
                let name = item["metadata"]["name"].as_str().unwrap_or_default();
                listed.insert((collection, name.to_string()), item.clone());
            }
        }
        let run = self.runs - 1;
        let in_flight = self.cut_off_objects();
        for (client, name, _) in &in_flight {
            let object = &self.clients[*client].ledger.objects[name];
            let kind = object.kind;
            let path = format!("{}/{name}", kind.collection());
            let r = client::request(p.port, "GET", &path, &[], None).expect("GET");
            let body: Option<Value> = (r.status == 200).then(|| r.json());
            let got = State::of(kind, body.as_ref());
            let listed_state = State::of(kind, listed.get(&(kind.collection(), name.clone())));
            if got != listed_state && !object.graceful {
                self.anomalies.push(format!(
                    "run {run}: {name}: GET shows {got:?}, the list {listed_state:?}"
                ));
            }
        }
        for c in &mut self.clients {
            let found = c.ledger.reconcile(&listed);
            self.anomalies
                .extend(found.into_iter().map(|a| format!("run {run}: {a}")));
        }
        for (client, name, before) in in_flight {
            if self.clients[client].ledger.objects[&name].state == before {
                self.cut_off.1 += 1;
            } else {
                self.cut_off.0 += 1;
            }
        }
        p
    }

    /// (client, name, acknowledged state) of each object a crash cut a
    /// request on.
    fn cut_off_objects(&self) -> Vec<(usize, String, State)> {
        let mut found = Vec::new();
        for (i, c) in self.clients.iter().enumerate() {
            for (name, o) in &c.ledger.objects {
                if o.pending.is_some() {
                    found.push((i, name.clone(), o.state.clone()));
                }
            }
        }
        found
    }

    /// One round of traffic and watches, ended by `crash`. Returns whether
    /// the failpoint (if any) ended it.
    fn round(&mut self, mut p: Process, crash: Crash) -> bool {
        let port = p.port;
        let pid = p.pid();
        std::thread::scope(|scope| {
            for c in &mut self.clients {
                scope.spawn(move || c.drive(port));
            }
            for w in &mut self.watches {
                scope.spawn(move || w.follow(port, None));
            }
            match crash {
                Crash::Kill(after) => {
                    std::thread::sleep(after);
                    kill_9(pid);
                }
                Crash::Failpoint(_, budget) => {
                    let deadline = Instant::now() + budget;
                    while !p.exited() && Instant::now() < deadline {
                        std::thread::sleep(Duration::from_millis(10));
                    }
                    // Only while unreaped: a reaped pid may be another process's.
                    if !p.exited() {
                        kill_9(pid);
                    }
                }
            }
        });
        let log = p.kill();
        if log.contains("panicked") {
            self.anomalies.push(format!(
                "run {}: the server panicked:\n{log}",
                self.runs - 1
            ));
        }
        matches!(crash, Crash::Failpoint(point, _) if log.contains(&format!("failpoint {point}: aborting")))
    }

    /// After the last crash: the watches catch up to a marker written now,
    /// then their events are checked against the ledgers.
    fn finish(&mut self) {
        let p = self.restart(None);
        for w in &mut self.watches {
            let marker = format!("k-marker-{:?}", w.collection).to_lowercase();
            let body = manifest(w.collection, &marker, "marker");
            let r = client::request(
                p.port,
                "POST",
                w.collection.collection(),
                &[("Content-Type", "application/json")],
                Some(&serde_json::to_vec(&body).expect("json")),
            )
            .expect("marker create");
            assert_eq!(r.status, 201, "marker: {}", r.text());
            w.follow(p.port, Some(&marker));
            self.anomalies.extend(w.errors.iter().cloned());
            self.anomalies.extend(w.order_anomalies());
            let ledgers: Vec<_> = self.clients.iter().map(|c| &c.ledger).collect();
            self.anomalies.extend(w.completeness_anomalies(&ledgers));
        }
        for c in &self.clients {
            self.anomalies.extend(c.anomalies.iter().cloned());
        }
        p.kill();
        self.anomalies.extend(store_tool::verify(&self.data_dir));
    }

    fn summary(&self) -> String {
        let objects: usize = self.clients.iter().map(|c| c.ledger.objects.len()).sum();
        let answered: u64 = self.clients.iter().map(|c| c.answered).sum();
        let events: usize = self.watches.iter().map(|w| w.events.len()).sum();
        let mut kinds = BTreeMap::new();
        for o in self.clients.iter().flat_map(|c| c.ledger.objects.values()) {
            let (objects, deleted) = kinds.entry(format!("{:?}", o.kind)).or_insert((0, 0));
            *objects += 1;
            *deleted += usize::from(o.deleted);
        }
        format!(
            "{} runs, {answered} answered requests on {objects} objects ((made, deleted) by kind: {kinds:?}), \
             cut-off requests found applied {} and not applied {}, {events} watch events, {} anomalies",
            self.runs,
            self.cut_off.0,
            self.cut_off.1,
            self.anomalies.len()
        )
    }

    fn assert_clean(&self) {
        for a in self.anomalies.iter().take(20) {
            eprintln!("ANOMALY {a}");
        }
        assert!(self.anomalies.is_empty(), "{}", self.summary());
    }
}

fn get(port: u16, path: &str) -> Value {
    let r = client::request(port, "GET", path, &[], None).expect("GET");
    assert_eq!(r.status, 200, "GET {path}: {}", r.text());
    serde_json::from_slice(&r.body).expect("json")
}

/// A namespaced custom resource with one string field.
fn install_crd(port: u16) {
    let crd = json!({
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": "gadgets.campaign.example.com"},
        "spec": {
            "group": "campaign.example.com",
            "scope": "Namespaced",
            "names": {"plural": "gadgets", "singular": "gadget", "kind": "Gadget"},
            "versions": [{"name": "v1", "served": true, "storage": true, "schema": {"openAPIV3Schema": {
                "type": "object",
                "properties": {"spec": {"type": "object", "properties": {"v": {"type": "string"}}}}
            }}}]
        }
    });
    let crds = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions";
    let body = serde_json::to_vec(&crd).expect("json");
    let r = client::request(
        port,
        "POST",
        crds,
        &[("Content-Type", "application/json")],
        Some(&body),
    )
    .expect("create CRD");
    assert_eq!(r.status, 201, "{}", r.text());
    cairn_tests::wait_until("the Gadget kind to be served", || {
        client::request(port, "GET", GADGETS, &[], None).is_ok_and(|r| r.status == 200)
    });
}

/// xorshift for the crash moments.
fn roll(state: &mut u64, n: u64) -> u64 {
    *state ^= *state << 13;
    *state ^= *state >> 7;
    *state ^= *state << 17;
    *state % n
}

#[test]
fn acknowledged_writes_and_watches_survive_kill_9_under_load() {
    let rounds = env_number("CAIRN_CRASH_ROUNDS", 30);
    let seed = env_number("CAIRN_CRASH_SEED", 1);
    let dir = tempfile::tempdir().expect("tempdir");
    // No compaction: a watch resumes from any revision it saw.
    let args = vec!["--compaction-interval", "0"];
    let mut campaign = Campaign::new(&dir.path().join("data"), args, seed, true);
    let mut moments = seed.wrapping_mul(0x2545_f491_4f6c_dd1d) | 1;
    for _ in 0..rounds {
        let p = campaign.restart(None);
        let after = Duration::from_millis(20 + roll(&mut moments, 600));
        campaign.round(p, Crash::Kill(after));
    }
    campaign.finish();
    eprintln!("kill -9 campaign (seed {seed}): {}", campaign.summary());
    campaign.assert_clean();
}

#[test]
fn engine_failpoints_under_load_lose_nothing_acknowledged() {
    // Compaction every second reaches the manifest's points.
    const POINTS: [(&str, u64); 4] = [
        ("commit:before-sync", 200),
        ("commit:after-sync", 200),
        ("manifest:before-rename", 3),
        ("compact:manifest-written", 3),
    ];
    let rounds = env_number("CAIRN_CRASH_FAILPOINT_ROUNDS", 2);
    let seed = env_number("CAIRN_CRASH_SEED", 1);
    let dir = tempfile::tempdir().expect("tempdir");
    let args = vec!["--compaction-interval", "1s"];
    let mut campaign = Campaign::new(&dir.path().join("data"), args, seed, false);
    let mut moments = seed.wrapping_mul(0x2545_f491_4f6c_dd1d) | 1;
    let mut fired: BTreeMap<&str, u64> = BTreeMap::new();
    for _ in 0..rounds {
        for (point, spread) in POINTS {
            let armed = format!("{point}@{}", 1 + roll(&mut moments, spread));
            let p = campaign.restart(Some(&armed));
            let cut = dir.path().join("cut.snapshot");
            campaign
                .anomalies
                .extend(store_tool::cut_snapshot(&p.data_dir, &cut));
            if campaign.round(p, Crash::Failpoint(point, Duration::from_secs(60))) {
                *fired.entry(point).or_default() += 1;
            }
        }
    }
    let whole = dir.path().join("whole.snapshot");
    let p = campaign.restart(None);
    campaign
        .anomalies
        .extend(store_tool::snapshot(&p.data_dir, &whole));
    p.kill();
    campaign.finish();
    eprintln!(
        "failpoint campaign (seed {seed}): {}; aborted at {fired:?}",
        campaign.summary()
    );
    campaign.assert_clean();
    for (point, _) in POINTS {
        assert!(
            fired.contains_key(point),
            "failpoint {point} never reached: {fired:?}"
        );
    }
}
