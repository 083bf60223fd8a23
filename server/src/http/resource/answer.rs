//! Creates of kinds that are never stored (TokenReview, SelfSubjectReview):
//! the body is decoded and checked like any create's, the kind's answerer
//! answers it, and the answer is sent with 201. A collection path serves
//! POST only (405 otherwise, as Kubernetes' router answers); item and watch
//! paths do not exist (404).

use http::{Method, Request, Response};
use hyper::body::Incoming;
use serde_json::{Map, Value};

use crate::api::error::ApiError;
use crate::api::kind::Question;
use crate::api::store::Store;
use crate::http::body::Body;
use crate::http::encode::table;
use crate::http::protobuf::decode_body;
use crate::http::resource::Call;

/// Where on an answered kind's paths a request landed.
pub struct Target<'a> {
    pub name: Option<&'a str>,
    pub watch_path: bool,
}

/// Serves a request to an answered kind.
pub async fn answer(
    r: &Call<'_>,
    req: Request<Incoming>,
    target: Target<'_>,
) -> Result<Response<Body>, ApiError> {
    let kind = &r.kind;
    let answerer = kind.answered_by.clone().ok_or(ApiError::PathNotFound)?;
    if target.name.is_some() || target.watch_path || (kind.namespaced && r.ns.is_none()) {
        return Err(ApiError::PathNotFound);
    }
    if req.method() != Method::POST {
        return Err(ApiError::NotAllowed(
            "the server does not allow this method on the requested resource".into(),
        ));
    }
    let opts = r
        .query
        .write_options(r.user_agent.as_deref(), &r.options("CreateOptions"))?;
    let body = r.read_body(req).await?;
    let decoded = decode_body(kind, r.content_type.as_deref(), &body)?;
    let (question_body, warnings) = Store::decode_object(kind, decoded, opts.field_validation)?;
    let question = Question {
        user: &r.user,
        namespace: r.ns,
        store: Some(&r.state.store),
        dry_run: opts.dry_run,
    };
    let answered = answerer.answer(question, question_body).resolve().await?;
    // A Binding is answered with a Status, as Kubernetes does.
    if answered.get("kind").and_then(Value::as_str) == Some("Status") {
        return Ok(r.writer.object(201, &answered, &warnings));
    }
    let mut object = Map::new();
    object.insert("kind".into(), Value::from(kind.kind.clone()));
    object.insert("apiVersion".into(), Value::from(kind.api_version()));
    if let Value::Object(fields) = answered {
        object.extend(
            fields
                .into_iter()
                .filter(|(k, _)| k != "kind" && k != "apiVersion"),
        );
    }
    let object = Value::Object(object);
    if let Some(options) = r.table.as_ref() {
        return Ok(r
            .writer
            .object(201, &table::object(kind, &object, options), &warnings));
    }
    Ok(r.writer.reply(kind, 201, &object, &warnings))
}
