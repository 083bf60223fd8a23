//! The paths of one kind with their operations (get, list, watch, create,
//! update, patch, delete, deletecollection and the subresources), their
//! query parameters, and the `x-kubernetes-action` /
//! `x-kubernetes-group-version-kind` extensions kubectl looks for (it
//! decides server-side field validation from `fieldValidation` on PATCH).

use serde_json::{Map, Value, json};

use super::names::Namer;
use super::schema_json::Flavor;
use crate::api::kind::{KindSpec, Origin};
use crate::http::discovery::subresources;

/// A query parameter: name, OpenAPI type, description.
type Param = (&'static str, &'static str, &'static str);

const PRETTY: Param = (
    "pretty",
    "string",
    "If 'true', then the output is pretty printed.",
);
const DRY_RUN: Param = (
    "dryRun",
    "string",
    "When present, indicates that modifications should not be persisted. Valid value: All.",
);
const FIELD_MANAGER: Param = (
    "fieldManager",
    "string",
    "A name associated with the actor or entity that is making these changes.",
);
const FIELD_VALIDATION: Param = (
    "fieldValidation",
    "string",
    "How the server treats unknown and duplicate fields in the request body: Ignore, Warn or Strict.",
);
const FORCE: Param = (
    "force",
    "boolean",
    "Force re-acquires conflicting fields owned by other managers; apply requests only.",
);
const LIST: [Param; 9] = [
    (
        "allowWatchBookmarks",
        "boolean",
        "Requests watch events of type BOOKMARK.",
    ),
    (
        "continue",
        "string",
        "The continue token of the previous page of a chunked list.",
    ),
    (
        "fieldSelector",
        "string",
        "Restricts the returned objects by their fields.",
    ),
    (
        "labelSelector",
        "string",
        "Restricts the returned objects by their labels.",
    ),
    (
        "limit",
        "integer",
        "The most objects one list response returns.",
    ),
    (
        "resourceVersion",
        "string",
        "Which resource versions the request may be served from.",
    ),
    (
        "resourceVersionMatch",
        "string",
        "How resourceVersion applies to list calls.",
    ),
    (
        "sendInitialEvents",
        "boolean",
        "Starts a watch with synthetic events for the current state.",
    ),
    (
        "timeoutSeconds",
        "integer",
        "Timeout of the list/watch call.",
    ),
];
const WATCH: Param = (
    "watch",
    "boolean",
    "Watch for changes and return them as a stream of events.",
);
const DELETE: [Param; 3] = [
    (
        "gracePeriodSeconds",
        "integer",
        "The duration in seconds before the object should be deleted.",
    ),
    (
        "orphanDependents",
        "boolean",
        "Deprecated: use propagationPolicy.",
    ),
    (
        "propagationPolicy",
        "string",
        "Whether and how garbage collection is performed: Orphan, Background or Foreground.",
    ),
];

/// What an operation's request body holds.
#[derive(Clone, Copy)]
enum Body {
    /// The kind's object (or the subresource's).
    Object,
    DeleteOptions,
    Patch,
}

/// One operation before it is written in a flavor.
struct Operation {
    method: &'static str,
    action: &'static str,
    id: String,
    description: String,
    params: Vec<Param>,
    body: Option<Body>,
    /// Status codes answered with the response definition.
    codes: &'static [u16],
    /// The definition answered with.
    returns: String,
    /// The definition the body holds (for `Body::Object`).
    body_type: String,
    /// `x-kubernetes-group-version-kind`.
    gvk: Value,
    streams: bool,
}

/// A path, its path parameters (name, description) and its operations.
type PathOperations = (String, Vec<(&'static str, &'static str)>, Vec<Operation>);

/// Builds the operations of one kind.
struct Builder<'a> {
    namer: &'a Namer,
    kind: &'a KindSpec,
    /// `CoreV1`, `RbacAuthorizationV1`.
    token: String,
    gvk: Value,
}

fn capitalized(s: &str) -> String {
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
    fn paths(&self) -> Vec<PathOperations> {
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
                Some((g, v)) => (
                    self.namer.api_type(g, v, &sub.kind),
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

/// Patch media types the server takes for this kind (strategic merge patch
/// only for built-in kinds, as Kubernetes).
fn patch_types(kind: &KindSpec) -> Vec<&'static str> {
    let mut types = vec![
        "application/apply-patch+yaml",
        "application/json-patch+json",
        "application/merge-patch+json",
    ];
    if kind.origin == Origin::BuiltIn {
        types.push("application/strategic-merge-patch+json");
    }
    types
}

fn render_param(flavor: Flavor, (name, ty, description): Param, location: &str) -> Value {
    let mut p = json!({"name": name, "in": location, "description": description});
    let required = location == "path";
    if required {
        p["required"] = json!(true);
    }
    match flavor {
        Flavor::V2 => {
            p["type"] = json!(ty);
            if !required {
                p["uniqueItems"] = json!(true);
            }
        }
        Flavor::V3 => {
            p["schema"] = if required {
                json!({"type": ty})
            } else {
                json!({"type": ty, "uniqueItems": true})
            };
        }
    }
    p
}

fn render(flavor: Flavor, namer: &Namer, kind: &KindSpec, op: &Operation) -> Value {
    let response_types: &[&str] = if op.streams {
        &[
            "application/json",
            "application/yaml",
            "application/json;stream=watch",
        ]
    } else {
        &["application/json", "application/yaml"]
    };
    let mut params: Vec<Value> = op
        .params
        .iter()
        .map(|p| render_param(flavor, *p, "query"))
        .collect();
    let body_def = match op.body {
        Some(Body::Object) => Some(op.body_type.clone()),
        Some(Body::DeleteOptions) => Some(namer.meta("DeleteOptions")),
        Some(Body::Patch) => Some(namer.meta("Patch")),
        None => None,
    };
    let body_types: Vec<&str> = match op.body {
        Some(Body::Patch) => patch_types(kind),
        _ => vec!["*/*"],
    };
    let mut responses = Map::new();
    for code in op.codes {
        let description = match code {
            201 => "Created",
            202 => "Accepted",
            _ => "OK",
        };
        let schema = flavor.reference(&op.returns);
        let response = match flavor {
            Flavor::V2 => json!({"description": description, "schema": schema}),
            Flavor::V3 => {
                let content: Map<String, Value> = response_types
                    .iter()
                    .map(|t| ((*t).to_string(), json!({"schema": schema})))
                    .collect();
                json!({"description": description, "content": content})
            }
        };
        responses.insert(code.to_string(), response);
    }
    responses.insert("401".into(), json!({"description": "Unauthorized"}));
    let mut out = json!({
        "tags": [format!("{}_{}", lower_first(&namer.group_token(kind)), kind.version)],
        "description": op.description,
        "operationId": op.id,
        "responses": responses,
        "x-kubernetes-action": op.action,
        "x-kubernetes-group-version-kind": op.gvk,
    });
    match flavor {
        Flavor::V2 => {
            if let Some(def) = &body_def {
                let required = !matches!(op.body, Some(Body::DeleteOptions));
                params.push(json!({"name": "body", "in": "body", "required": required, "schema": flavor.reference(def)}));
                out["consumes"] = json!(body_types);
            } else {
                out["consumes"] = json!(["*/*"]);
            }
            out["produces"] = json!(response_types);
            out["schemes"] = json!(["https"]);
        }
        Flavor::V3 => {
            if let Some(def) = &body_def {
                let content: Map<String, Value> = body_types
                    .iter()
                    .map(|t| ((*t).to_string(), json!({"schema": flavor.reference(def)})))
                    .collect();
                let required = !matches!(op.body, Some(Body::DeleteOptions));
                out["requestBody"] = json!({"content": content, "required": required});
            }
        }
    }
    if !params.is_empty() {
        out["parameters"] = Value::Array(params);
    }
    out
}

fn lower_first(s: &str) -> String {
    let mut c = s.chars();
    c.next().map_or_else(String::new, |f| {
        f.to_ascii_lowercase().to_string() + c.as_str()
    })
}

/// Whether any of these kinds serves `/scale` and `/eviction` (their
/// definitions are then needed).
#[must_use]
pub fn needs(kinds: &[&KindSpec]) -> super::meta_types::Needs {
    super::meta_types::Needs {
        scale: kinds.iter().any(|k| k.subresources.scale.is_some()),
        eviction: kinds.iter().any(|k| k.subresources.eviction),
    }
}

/// The path items of one kind, keyed by path.
#[must_use]
pub fn paths(flavor: Flavor, namer: &Namer, kind: &KindSpec) -> Vec<(String, Value)> {
    let builder = Builder {
        namer,
        kind,
        token: format!("{}{}", namer.group_token(kind), capitalized(&kind.version)),
        gvk: json!({"group": kind.group, "kind": kind.kind, "version": kind.version}),
    };
    builder
        .paths()
        .into_iter()
        .map(|(path, path_params, ops)| {
            let mut item = Map::new();
            for op in &ops {
                item.insert(op.method.into(), render(flavor, namer, kind, op));
            }
            let mut params: Vec<Value> = path_params
                .into_iter()
                .map(|(name, description)| {
                    render_param(flavor, (name, "string", description), "path")
                })
                .collect();
            params.push(render_param(flavor, PRETTY, "query"));
            item.insert("parameters".into(), Value::Array(params));
            (path, Value::Object(item))
        })
        .collect()
}
