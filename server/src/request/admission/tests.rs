//! The admission chain: phases in order, plugins in order, only for the
//! operations they handle, the first refusal ending a phase, every pin kept.

use std::sync::Mutex;

use serde_json::json;

use super::*;
use crate::api::schema::Schema;

type Log = Arc<Mutex<Vec<String>>>;

/// Records each call; sets `metadata.labels.<name>` when it mutates;
/// refuses when told to; pins one record per validation.
struct Probe {
    name: &'static str,
    operations: &'static [Operation],
    refuse: bool,
    log: Log,
}

impl Probe {
    fn new(name: &'static str, log: &Log) -> Probe {
        Probe {
            name,
            operations: &[Operation::Create, Operation::Update, Operation::Delete],
            refuse: false,
            log: Arc::clone(log),
        }
    }

    fn answer(&self) -> Result<(), ApiError> {
        if self.refuse {
            return Err(ApiError::BadRequest(format!("{} says no", self.name)));
        }
        Ok(())
    }
}

impl MutatingAdmission for Probe {
    fn name(&self) -> &'static str {
        self.name
    }
    fn handles(&self, operation: Operation) -> bool {
        self.operations.contains(&operation)
    }
    fn admit<'a>(
        &'a self,
        attrs: &'a Attributes<'a>,
        object: Option<&'a mut Value>,
    ) -> MaybeAsync<'a, Result<(), ApiError>> {
        self.log.lock().expect("lock").push(format!(
            "admit {} {} {}",
            self.name,
            attrs.operation.as_str(),
            attrs.name
        ));
        if let Some(obj) = object {
            obj["metadata"]["labels"][self.name] = json!("seen");
        }
        MaybeAsync::Ready(self.answer())
    }
}

impl ValidatingAdmission for Probe {
    fn name(&self) -> &'static str {
        self.name
    }
    fn handles(&self, operation: Operation) -> bool {
        self.operations.contains(&operation)
    }
    fn validate<'a>(
        &'a self,
        attrs: &'a Attributes<'a>,
        object: Option<&'a Value>,
        pins: &'a mut Pins,
    ) -> MaybeAsync<'a, Result<(), ApiError>> {
        let labels = object
            .and_then(|o| o.pointer("/metadata/labels"))
            .map(|l| l.to_string())
            .unwrap_or_default();
        self.log.lock().expect("lock").push(format!(
            "validate {} {} {labels}",
            self.name,
            attrs.operation.as_str()
        ));
        MaybeAsync::pending(async move {
            pins.pin(self.name.as_bytes().to_vec(), Revision(7));
            self.answer()
        })
    }
}

fn kind() -> KindSpec {
    KindSpec::new("", "v1", "ConfigMap", "configmaps", true, Schema::default())
}

fn log() -> Log {
    Arc::new(Mutex::new(Vec::new()))
}

fn taken(log: &Log) -> Vec<String> {
    std::mem::take(&mut *log.lock().expect("lock"))
}

#[tokio::test]
async fn phases_run_their_plugins_in_order_and_mutations_are_validated() {
    let log = log();
    let chain = Chain::new(
        vec![
            Arc::new(Probe::new("m1", &log)),
            Arc::new(Probe::new("m2", &log)),
        ],
        vec![
            Arc::new(Probe::new("v1", &log)),
            Arc::new(Probe::new("v2", &log)),
        ],
    );
    let kind = kind();
    let opts = WriteOptions::default();
    let attrs = Attributes::create(&kind, Some("ns"), "c", &opts);
    assert_eq!(
        (attrs.user.name.as_str(), attrs.dry_run(), attrs.subresource),
        ("system:apiserver", false, None)
    );
    let mut obj = json!({"metadata": {"name": "c"}});
    chain.admit(&attrs, Some(&mut obj)).await.expect("admitted");
    let pins = chain.validate(&attrs, Some(&obj)).await.expect("valid");
    assert_eq!(pins.len(), 2);
    assert_eq!(
        taken(&log),
        [
            "admit m1 CREATE c",
            "admit m2 CREATE c",
            r#"validate v1 CREATE {"m1":"seen","m2":"seen"}"#,
            r#"validate v2 CREATE {"m1":"seen","m2":"seen"}"#,
        ]
    );
    assert!(chain.mutates(Operation::Create));
    assert!(!Chain::default().mutates(Operation::Create));
    assert!(
        Chain::default()
            .validate(&attrs, None)
            .await
            .expect("ok")
            .is_empty()
    );
}

#[tokio::test]
async fn only_plugins_handling_the_operation_run() {
    let log = log();
    let creates_only = Probe {
        operations: &[Operation::Create],
        ..Probe::new("creates", &log)
    };
    let chain = Chain::new(
        vec![Arc::new(Probe::new("all", &log))],
        vec![Arc::new(creates_only), Arc::new(Probe::new("every", &log))],
    );
    let kind = kind();
    let opts = DeleteOptions {
        dry_run: true,
        user: Some(Arc::new(UserInfo::new("jane", &[]))),
        ..DeleteOptions::default()
    };
    let old = json!({"metadata": {"name": "c"}});
    let attrs = Attributes::delete(&kind, Some("ns"), "c", &opts, Some(&old));
    assert_eq!((attrs.user.name.as_str(), attrs.dry_run()), ("jane", true));
    chain.admit(&attrs, None).await.expect("admitted");
    let pins = chain.validate(&attrs, None).await.expect("valid");
    assert_eq!(pins.len(), 1);
    assert_eq!(
        taken(&log),
        ["admit all DELETE c", "validate every DELETE "]
    );
    assert!(!Chain::new(Vec::new(), Vec::new()).mutates(Operation::Delete));
}

#[tokio::test]
async fn the_first_refusal_ends_the_phase() {
    let log = log();
    let no = |name| Probe {
        refuse: true,
        ..Probe::new(name, &log)
    };
    let chain = Chain::new(
        vec![Arc::new(no("m1")), Arc::new(Probe::new("m2", &log))],
        vec![Arc::new(no("v1")), Arc::new(Probe::new("v2", &log))],
    );
    let kind = kind();
    let opts = WriteOptions {
        subresource: Some(Subresource::Status),
        ..WriteOptions::default()
    };
    let old = json!({});
    let attrs = Attributes::update(&kind, None, "c", &opts, &old);
    assert_eq!(attrs.subresource, Some("status"));
    let mut obj = json!({});
    let err = chain
        .admit(&attrs, Some(&mut obj))
        .await
        .expect_err("refused");
    assert_eq!(err.to_string(), "m1 says no");
    let err = chain
        .validate(&attrs, Some(&obj))
        .await
        .expect_err("refused");
    assert_eq!(err.to_string(), "v1 says no");
    assert_eq!(
        taken(&log),
        ["admit m1 UPDATE c", r#"validate v1 UPDATE {"m1":"seen"}"#]
    );
}
