//! One client of the crash campaign: mixed writes on objects only it
//! touches (so its ledger alone says what each must be), until a request
//! gets no answer because the server died. Every request's expected effect
//! is entered as pending before it is sent and settled when it is answered.

use std::io;

use cairn_tests::{Response, client};
use serde_json::{Value, json};

use super::kinds::{CONFIGMAPS, Kind, content_patch, manifest};
use super::ledger::{After, Ledger, Object, State, resource_version};

pub struct Client {
    pub id: usize,
    rng: u64,
    seq: u64,
    pub ledger: Ledger,
    /// Names of its objects not known to be gone (the ledger keeps every
    /// object ever made; choosing among these stays cheap as it grows).
    active: Vec<String>,
    pub anomalies: Vec<String>,
    /// Answered requests, over all rounds.
    pub answered: u64,
}

/// A request got no answer (the server is gone): its pending state stays.
struct NoAnswer;

type Step = Result<(), NoAnswer>;

impl Client {
    pub fn new(id: usize, seed: u64) -> Client {
        Client {
            id,
            rng: seed ^ (0x9e37_79b9_7f4a_7c15_u64.wrapping_mul(id as u64 + 1)) | 1,
            seq: 0,
            ledger: Ledger::default(),
            active: Vec::new(),
            anomalies: Vec::new(),
            answered: 0,
        }
    }

    /// xorshift: reproducible per seed and client.
    fn roll(&mut self, n: u64) -> u64 {
        self.rng ^= self.rng << 13;
        self.rng ^= self.rng >> 7;
        self.rng ^= self.rng << 17;
        self.rng % n
    }

    fn fresh(&mut self, what: &str) -> String {
        self.seq += 1;
        format!("k{}-{what}{}", self.id, self.seq)
    }

    /// Sends requests until one goes unanswered.
    pub fn drive(&mut self, port: u16) {
        while self.one(port).is_ok() {}
    }

    fn one(&mut self, port: u16) -> Step {
        let objects = &self.ledger.objects;
        self.active
            .retain(|n| objects[n].pending.is_some() || objects[n].state != State::Absent);
        let live: Vec<String> = self
            .active
            .iter()
            .filter(|n| objects[*n].pending.is_none() && objects[*n].is_writable())
            .cloned()
            .collect();
        if self.roll(15) == 0 {
            return self.batch(port);
        }
        if live.len() < 3 || self.roll(8) == 0 {
            let kind = match self.roll(6) {
                0 | 1 => Kind::Gadget,
                2 => Kind::Pod,
                _ => Kind::ConfigMap,
            };
            let finalizer = kind != Kind::Pod && self.roll(3) == 0;
            let name = self.fresh("o");
            return self.create(port, kind, &name, finalizer, None);
        }
        let name = live[self.roll(live.len() as u64) as usize].clone();
        let object = &self.ledger.objects[&name];
        let (kind, state) = (object.kind, object.state.clone());
        let State::Present {
            rv, terminating, ..
        } = state
        else {
            unreachable!("live objects are present")
        };
        if terminating {
            return self.finalize(port, &name, kind);
        }
        match self.roll(7) {
            // A Pod's PUT would need every defaulted field back.
            0 if kind != Kind::Pod => self.put(port, &name, kind, rv, false),
            1 if kind != Kind::Pod => self.put(port, &name, kind, rv, true),
            0..=2 => self.merge_patch(port, &name, kind, rv),
            3 if kind != Kind::Gadget => self.strategic_patch(port, &name, kind),
            3 | 4 => self.apply(port, &name, kind),
            _ => self.delete(port, &name, kind, rv),
        }
    }

    /// Sends a request with `after` pending on `names`; `None` when unanswered.
    fn send(
        &mut self,
        port: u16,
        names: &[&str],
        after: Option<After>,
        request: (&str, String, Option<&str>, Option<Value>),
    ) -> Result<Response, NoAnswer> {
        for name in names {
            self.ledger
                .objects
                .get_mut(*name)
                .expect("known object")
                .pending
                .clone_from(&after);
        }
        let (method, path, content_type, body) = request;
        let bytes = body.map(|b| serde_json::to_vec(&b).expect("json"));
        let headers: Vec<(&str, &str)> = content_type
            .map(|ct| ("Content-Type", ct))
            .into_iter()
            .collect();
        let answer: io::Result<Response> =
            client::request(port, method, &path, &headers, bytes.as_deref());
        let r = answer.map_err(|_| NoAnswer)?;
        self.answered += 1;
        Ok(r)
    }

    /// Settles `name` at the answered state, or records the surprise (the
    /// pending state stays: a restart shows which one it is).
    fn settle(&mut self, name: &str, r: &Response, want: u16, what: &str) -> Option<Value> {
        if r.status != want {
            self.anomalies.push(format!(
                "{name}: {what} answered {} (want {want}): {}",
                r.status,
                r.text()
            ));
            return None;
        }
        let body: Value = serde_json::from_slice(&r.body).unwrap_or(Value::Null);
        Some(body)
    }

    fn settle_present(&mut self, name: &str, kind: Kind, r: &Response, want: u16, what: &str) {
        if let Some(body) = self.settle(name, r, want, what) {
            if resource_version(&body).is_none() {
                self.anomalies
                    .push(format!("{name}: {what} answer without resourceVersion"));
                return;
            }
            let state = State::of(kind, Some(&body));
            self.object(name).settle(state);
        }
    }

    fn object(&mut self, name: &str) -> &mut Object {
        self.ledger.objects.get_mut(name).expect("known object")
    }

    fn content(&mut self) -> String {
        self.seq += 1;
        format!("c{}-{}", self.id, self.seq)
    }

    fn create(
        &mut self,
        port: u16,
        kind: Kind,
        name: &str,
        finalizer: bool,
        batch: Option<&str>,
    ) -> Step {
        self.ledger
            .objects
            .insert(name.to_string(), Object::new(kind, finalizer));
        self.active.push(name.to_string());
        let content = self.content();
        let mut body = manifest(kind, name, &content);
        if finalizer {
            body["metadata"]["finalizers"] = json!(["campaign.example.com/hold"]);
        }
        if let Some(tag) = batch {
            body["metadata"]["labels"] = json!({"batch": tag});
        }
        let after = After::Present {
            content,
            terminating: false,
        };
        let request = (
            "POST",
            kind.collection().to_string(),
            Some(JSON),
            Some(body),
        );
        let r = self.send(port, &[name], Some(after), request)?;
        self.settle_present(name, kind, &r, 201, "create");
        Ok(())
    }

    /// A PUT with the current resourceVersion, or a stale one (409, no change).
    fn put(&mut self, port: u16, name: &str, kind: Kind, rv: u64, stale: bool) -> Step {
        let content = self.content();
        let finalizer = self.ledger.objects[name].finalizer;
        let mut body = manifest(kind, name, &content);
        body["metadata"]["resourceVersion"] = json!((if stale { rv - 1 } else { rv }).to_string());
        if finalizer {
            body["metadata"]["finalizers"] = json!(["campaign.example.com/hold"]);
        }
        let after = (!stale).then_some(After::Present {
            content,
            terminating: false,
        });
        let path = format!("{}/{name}", kind.collection());
        let r = self.send(port, &[name], after, ("PUT", path, Some(JSON), Some(body)))?;
        if stale {
            if let Some(body) = self.settle(name, &r, 409, "stale PUT") {
                if body["reason"] != "Conflict" {
                    self.anomalies
                        .push(format!("{name}: stale PUT answered {body}"));
                }
                self.object(name).pending = None;
            }
        } else {
            self.settle_present(name, kind, &r, 200, "PUT");
        }
        Ok(())
    }

    fn merge_patch(&mut self, port: u16, name: &str, kind: Kind, rv: u64) -> Step {
        let content = self.content();
        let mut patch = content_patch(kind, &content);
        if self.roll(2) == 0 {
            patch["metadata"] = json!({"resourceVersion": rv.to_string()});
        }
        self.patch(port, name, kind, content, MERGE, patch, "")
    }

    fn strategic_patch(&mut self, port: u16, name: &str, kind: Kind) -> Step {
        let content = self.content();
        let patch = content_patch(kind, &content);
        self.patch(port, name, kind, content, STRATEGIC, patch, "")
    }

    fn apply(&mut self, port: u16, name: &str, kind: Kind) -> Step {
        let content = self.content();
        let body = manifest(kind, name, &content);
        let query = format!("?fieldManager=campaign-{}&force=true", self.id);
        self.patch(port, name, kind, content, APPLY, body, &query)
    }

    #[allow(clippy::too_many_arguments)]
    fn patch(
        &mut self,
        port: u16,
        name: &str,
        kind: Kind,
        content: String,
        content_type: &str,
        body: Value,
        query: &str,
    ) -> Step {
        let after = After::Present {
            content,
            terminating: false,
        };
        let path = format!("{}/{name}{query}", kind.collection());
        let r = self.send(
            port,
            &[name],
            Some(after),
            ("PATCH", path, Some(content_type), Some(body)),
        )?;
        self.settle_present(name, kind, &r, 200, content_type);
        Ok(())
    }

    /// A delete with a grace period and sometimes a resourceVersion
    /// precondition: gone at once, or marked when a finalizer holds it.
    fn delete(&mut self, port: u16, name: &str, kind: Kind, rv: u64) -> Step {
        let object = &self.ledger.objects[name];
        let (marks, content) = match &object.state {
            State::Present { content, .. } => {
                (object.finalizer || object.graceful, content.clone())
            }
            State::Absent => unreachable!("deletes only present objects"),
        };
        // A pod's grace period is what keeps it (0 deletes it at once).
        let graceful = object.graceful;
        let grace = self.roll(3) + u64::from(graceful);
        let options = if self.roll(2) == 0 {
            Some(
                json!({"kind": "DeleteOptions", "apiVersion": "v1", "preconditions": {"resourceVersion": rv.to_string()}}),
            )
        } else {
            None
        };
        let after = if marks {
            After::Present {
                content,
                terminating: true,
            }
        } else {
            After::Absent
        };
        let path = format!("{}/{name}?gracePeriodSeconds={grace}", kind.collection());
        let content_type = options.as_ref().map(|_| JSON);
        let r = self.send(
            port,
            &[name],
            Some(after),
            ("DELETE", path, content_type, options),
        )?;
        if marks {
            self.settle_present(name, kind, &r, 200, "graceful or held DELETE");
        } else if self.settle(name, &r, 200, "DELETE").is_some() {
            self.object(name).settle(State::Absent);
        }
        Ok(())
    }

    /// Removes the finalizer of a terminating object: it goes.
    fn finalize(&mut self, port: u16, name: &str, kind: Kind) -> Step {
        let patch = json!({"metadata": {"finalizers": null}});
        let path = format!("{}/{name}", kind.collection());
        let r = self.send(
            port,
            &[name],
            Some(After::Absent),
            ("PATCH", path, Some(MERGE), Some(patch)),
        )?;
        if self.settle(name, &r, 200, "finalizer removal").is_some() {
            self.object(name).settle(State::Absent);
        }
        Ok(())
    }

    /// A few labelled ConfigMaps, then a deletecollection of exactly them.
    fn batch(&mut self, port: u16) -> Step {
        let tag = self.fresh("b");
        let names: Vec<String> = (0..3).map(|i| format!("{tag}-{i}")).collect();
        for name in &names {
            self.create(port, Kind::ConfigMap, name, false, Some(&tag))?;
        }
        let refs: Vec<&str> = names.iter().map(String::as_str).collect();
        let path = format!("{CONFIGMAPS}?labelSelector=batch%3D{tag}");
        let r = self.send(
            port,
            &refs,
            Some(After::Absent),
            ("DELETE", path, None, None),
        )?;
        if self.settle(&tag, &r, 200, "deletecollection").is_some() {
            for name in &names {
                self.object(name).settle(State::Absent);
            }
        }
        Ok(())
    }
}

const JSON: &str = "application/json";
const MERGE: &str = "application/merge-patch+json";
const STRATEGIC: &str = "application/strategic-merge-patch+json";
const APPLY: &str = "application/apply-patch+yaml";
