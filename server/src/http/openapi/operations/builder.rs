//! The operations of one kind, path by path: collection, item, watch,
//! all-namespaces and subresource paths, with their ids, parameters, bodies
//! and answers.

use serde_json::{Value, json};

use super::params::{DELETE, DRY_RUN, FIELD_MANAGER, FIELD_VALIDATION, FORCE, LIST, WATCH};
use super::{Body, Operation, PathOperations};
use crate::api::kind::KindSpec;
use crate::http::discovery::subresources;
use crate::http::openapi::names::Namer;

/// Builds the operations of one kind.
pub(super) struct Builder<'a> {
    pub(super) namer: &'a Namer,
    pub(super) kind: &'a KindSpec,
    /// `CoreV1`, `RbacAuthorizationV1`.
    pub(super) token: String,
    pub(super) gvk: Value,
}

pub(super) fn capitalized(s: &str) -> String {
    let mut c = s.chars();
    c.next().map_or_else(String::new, |f| {
        f.to_ascii_uppercase().to_string() + c.as_str()
    })
}

impl Builder<'_> {
    fn op(
        &self,
        method: &'static str,
        action: &'static str,
        id: String,
        description: String,
    ) -> Operation {
        Operation {
            method,
            action,
            id,
            description,
            params: Vec::new(),
            body: None,
            codes: &[200],
            returns: self.namer.kind(self.kind),
            body_type: self.namer.kind(self.kind),
            gvk: self.gvk.clone(),
            streams: false,
        }
    }

    fn writes(mut op: Operation, body: Body, codes: &'static [u16]) -> Operation {
        op.params = vec![DRY_RUN, FIELD_MANAGER, FIELD_VALIDATION];
        if matches!(body, Body::Patch) {
            op.params.push(FORCE);
        }
        op.body = Some(body);
        op.codes = codes;
        op
    }

    /// `{base}` (collection), `{base}/{name}` and the watch paths.
    pub(super) fn paths(&self) -> Vec<PathOperations> {
        let k = self.kind;
        let root = if k.group.is_empty() {
            format!("/api/{}", k.version)
        } else {
            format!("/apis/{}/{}", k.group, k.version)
        };
        let (scope, scope_params): (&str, Vec<(&str, &str)>) = if k.namespaced {
            (
                "/namespaces/{namespace}",
                vec![(
                    "namespace",
                    "object name and auth scope, such as for teams and projects",
                )],
            )
        } else {
            ("", Vec::new())
        };
        let ns_word = if k.namespaced { "Namespaced" } else { "" };
        let t = &self.token;
        let kind = &k.kind;
        let collection = format!("{root}{scope}/{}", k.resource);
        let item = format!("{collection}/{{name}}");
        let mut item_params = scope_params.clone();
        item_params.push(("name", "name of the resource"));

        let mut list = self.op(
            "get",
            "list",
            format!("list{t}{ns_word}{kind}"),
            format!("list or watch objects of kind {kind}"),
        );
        list.params = LIST.to_vec();
        list.params.push(WATCH);
        list.returns = self.namer.list(k);
        let create = Self::writes(
            self.op(
                "post",
                "post",
                format!("create{t}{ns_word}{kind}"),
                format!("create a {kind}"),
            ),
            Body::Object,
            &[200, 201, 202],
        );
        if k.answered_by.is_some() {
            // Never stored: a create is the only operation.
            return vec![(collection, scope_params, vec![create])];
        }
        let mut delete_all = self.op(
            "delete",
            "deletecollection",
            format!("delete{t}Collection{ns_word}{kind}"),
            format!("delete collection of {kind}"),
        );
        delete_all.params = [vec![DRY_RUN], DELETE.to_vec(), LIST.to_vec()].concat();
        delete_all.body = Some(Body::DeleteOptions);
        delete_all.returns = self.namer.meta("Status");

        let read = self.op(
            "get",
            "get",
            format!("read{t}{ns_word}{kind}"),
            format!("read the specified {kind}"),
        );
        let replace = Self::writes(
            self.op(
                "put",
                "put",
                format!("replace{t}{ns_word}{kind}"),
                format!("replace the specified {kind}"),
            ),
            Body::Object,
            &[200, 201],
        );
        let patch = Self::writes(
            self.op(
                "patch",
                "patch",
                format!("patch{t}{ns_word}{kind}"),
                format!("partially update the specified {kind}"),
            ),
            Body::Patch,
            &[200, 201],
        );
        let mut delete = self.op(
            "delete",
            "delete",
            format!("delete{t}{ns_word}{kind}"),
            format!("delete a {kind}"),
        );
        delete.params = [vec![DRY_RUN], DELETE.to_vec()].concat();
        delete.body = Some(Body::DeleteOptions);
        delete.codes = &[200, 202];
        if !k.return_deleted_object {
            delete.returns = self.namer.meta("Status");
        }

        let watch_op = |action: &'static str, id: String, description: String| {
            let mut op = self.op("get", action, id, description);
            op.params = LIST.to_vec();
            op.params.push(WATCH);
            op.returns = self.namer.meta("WatchEvent");
            op.streams = true;
            op
        };
        let mut out = vec![
            (
                collection.clone(),
                scope_params.clone(),
                vec![list, create, delete_all],
            ),
            (
                item.clone(),
                item_params.clone(),
                vec![read, replace, patch, delete],
            ),
            (
                format!("{root}/watch{scope}/{}", k.resource),
                scope_params.clone(),
                vec![watch_op(
                    "watchlist",
                    format!("watch{t}{ns_word}{kind}List"),
                    format!("watch changes to a list of {kind}"),
                )],
            ),
            (
                format!("{root}/watch{scope}/{}/{{name}}", k.resource),
                item_params.clone(),
                vec![watch_op(
                    "watch",
                    format!("watch{t}{ns_word}{kind}"),
                    format!("watch changes to an object of kind {kind}"),
                )],
            ),
        ];
        if k.namespaced {
            let mut all = self.op(
                "get",
                "list",
                format!("list{t}{kind}ForAllNamespaces"),
                format!("list or watch objects of kind {kind}"),
            );
            all.params = LIST.to_vec();
            all.params.push(WATCH);
            all.returns = self.namer.list(k);
            out.push((format!("{root}/{}", k.resource), Vec::new(), vec![all]));
            out.push((
                format!("{root}/watch/{}", k.resource),
                Vec::new(),
                vec![watch_op(
                    "watchlist",
                    format!("watch{t}{kind}ListForAllNamespaces"),
                    format!("watch changes to a list of {kind}"),
                )],
            ));
        }
        for sub in subresources(k) {
            let word = capitalized(sub.name);
            let (returns, gvk) = match sub.group_version {
                // Scale and Eviction live in Kubernetes' own packages,
                // named after their group.
                // (its first word: `authentication` for authentication.k8s.io).
                Some((g, v)) => (
                    self.namer.api_type(
                        match g.split('.').next().unwrap_or(g) {
                            "" => "core",
                            package => package,
                        },
                        v,
                        &sub.kind,
                    ),
                    json!({"group": g, "kind": sub.kind, "version": v}),
                ),
                None => (self.namer.kind(k), self.gvk.clone()),
            };
            let mut ops = Vec::new();
            for verb in sub.verbs {
                let mut op = match *verb {
                    "get" => self.op(
                        "get",
                        "get",
                        format!("read{t}{ns_word}{kind}{word}"),
                        format!("read {} of the specified {kind}", sub.name),
                    ),
                    "update" => Self::writes(
                        self.op(
                            "put",
                            "put",
                            format!("replace{t}{ns_word}{kind}{word}"),
                            format!("replace {} of the specified {kind}", sub.name),
                        ),
                        Body::Object,
                        &[200, 201],
                    ),
                    "patch" => Self::writes(
                        self.op(
                            "patch",
                            "patch",
                            format!("patch{t}{ns_word}{kind}{word}"),
                            format!("partially update {} of the specified {kind}", sub.name),
                        ),
                        Body::Patch,
                        &[200, 201],
                    ),
                    _ => Self::writes(
                        self.op(
                            "post",
                            "post",
                            format!("create{t}{ns_word}{kind}{word}"),
                            format!("create {} of a {kind}", sub.name),
                        ),
                        Body::Object,
                        &[200, 201, 202],
                    ),
                };
                op.returns.clone_from(&returns);
                op.body_type.clone_from(&returns);
                op.gvk = gvk.clone();
                ops.push(op);
            }
            out.push((format!("{item}/{}", sub.name), item_params.clone(), ops));
        }
        out
    }
}
