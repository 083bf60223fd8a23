//! A Swagger 2.0 document (JSON) as the protobuf `Document`, the way gnostic
//! reads one: maps become ordered name/value lists, parameters are sorted by
//! `in` into their kinds, `$ref`s become references, `x-` keys become
//! vendor extensions.

use serde_json::{Map, Value};

use super::convert_schema::{named_schemas, schema};
use super::document_messages::{
    ApiKeySecurity, BasicAuthenticationSecurity, BodyParameter, Definitions, Document, Info,
    JsonReference, NamedParameter, NamedPathItem, NamedResponseValue, NamedSecurityScheme,
    NamedStringArray, NonBodyKind, NonBodyParameter, Operation, Parameter, ParameterDefinitions,
    ParameterKind, ParameterOrReference, ParametersItem, PathItem, Paths, Response,
    ResponseOrReference, ResponseValue, Responses, SchemaItem, SecurityDefinitions,
    SecurityRequirement, SecurityScheme, SecuritySchemeKind, StringArray,
};
use super::fields::{Dropped, Fields, extension};
use super::parameter_messages::{PathParameter, QueryParameter};

#[must_use]
pub fn document(value: &Value, dropped: &mut Dropped) -> Document {
    let Some(mut f) = Fields::new(value, "document", dropped) else {
        return Document::default();
    };
    let mut doc = Document {
        swagger: f.string("swagger"),
        host: f.string("host"),
        base_path: f.string("basePath"),
        schemes: f.strings("schemes"),
        consumes: f.strings("consumes"),
        produces: f.strings("produces"),
        ..Document::default()
    };
    doc.info = f.value("info").map(|v| info(v, f.dropped()));
    doc.paths = f.object("paths").map(|m| paths(m, f.dropped()));
    doc.definitions = f.object("definitions").map(|m| Definitions {
        additional_properties: named_schemas(m, f.dropped()),
    });
    doc.parameters = f.object("parameters").map(|m| ParameterDefinitions {
        additional_properties: m
            .iter()
            .map(|(name, p)| NamedParameter {
                name: name.clone(),
                value: parameter(p, f.dropped()),
            })
            .collect(),
    });
    doc.security = security(f.array("security"), f.dropped());
    doc.security_definitions = f
        .object("securityDefinitions")
        .map(|m| SecurityDefinitions {
            additional_properties: m
                .iter()
                .map(|(name, s)| NamedSecurityScheme {
                    name: name.clone(),
                    value: security_scheme(s, f.dropped()),
                })
                .collect(),
        });
    doc.vendor_extension = f.finish();
    doc
}

fn info(value: &Value, dropped: &mut Dropped) -> Info {
    let Some(mut f) = Fields::new(value, "info", dropped) else {
        return Info::default();
    };
    Info {
        title: f.string("title"),
        version: f.string("version"),
        description: f.string("description"),
        terms_of_service: f.string("termsOfService"),
        vendor_extension: f.finish(),
    }
}

fn paths(map: &Map<String, Value>, dropped: &mut Dropped) -> Paths {
    let mut out = Paths::default();
    for (key, value) in map {
        if key.starts_with("x-") {
            out.vendor_extension.push(extension(key, value));
        } else {
            out.path.push(NamedPathItem {
                name: key.clone(),
                value: Some(path_item(value, dropped)),
            });
        }
    }
    out
}

fn path_item(value: &Value, dropped: &mut Dropped) -> PathItem {
    let Some(mut f) = Fields::new(value, "path item", dropped) else {
        return PathItem::default();
    };
    let mut item = PathItem {
        xref: f.string("$ref"),
        ..PathItem::default()
    };
    item.get = f.value("get").map(|v| operation(v, f.dropped()));
    item.put = f.value("put").map(|v| operation(v, f.dropped()));
    item.post = f.value("post").map(|v| operation(v, f.dropped()));
    item.delete = f.value("delete").map(|v| operation(v, f.dropped()));
    item.options = f.value("options").map(|v| operation(v, f.dropped()));
    item.head = f.value("head").map(|v| operation(v, f.dropped()));
    item.patch = f.value("patch").map(|v| operation(v, f.dropped()));
    item.parameters = parameters(f.array("parameters"), f.dropped());
    item.vendor_extension = f.finish();
    item
}

fn operation(value: &Value, dropped: &mut Dropped) -> Operation {
    let Some(mut f) = Fields::new(value, "operation", dropped) else {
        return Operation::default();
    };
    let mut op = Operation {
        tags: f.strings("tags"),
        summary: f.string("summary"),
        description: f.string("description"),
        operation_id: f.string("operationId"),
        produces: f.strings("produces"),
        consumes: f.strings("consumes"),
        schemes: f.strings("schemes"),
        deprecated: f.boolean("deprecated"),
        ..Operation::default()
    };
    op.parameters = parameters(f.array("parameters"), f.dropped());
    op.responses = f.object("responses").map(|m| responses(m, f.dropped()));
    op.security = security(f.array("security"), f.dropped());
    op.vendor_extension = f.finish();
    op
}

fn reference(value: &Value) -> Option<JsonReference> {
    let xref = value.get("$ref")?.as_str()?;
    Some(JsonReference {
        xref: xref.to_string(),
        description: value
            .get("description")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string(),
    })
}

fn parameters(list: &[Value], dropped: &mut Dropped) -> Vec<ParametersItem> {
    list.iter()
        .map(|p| ParametersItem {
            oneof: match reference(p) {
                Some(r) => Some(ParameterOrReference::Reference(r)),
                None => parameter(p, dropped).map(|p| ParameterOrReference::Parameter(Box::new(p))),
            },
        })
        .collect()
}

/// Reads a non-body parameter's fields into either numbering (`$extra`: the
/// fields only one of them has).
macro_rules! non_body {
    ($message:ident, $f:ident $(, $extra:ident: $value:expr)*) => {
        $message {
            required: $f.boolean("required"),
            r#in: $f.string("in"),
            description: $f.string("description"),
            name: $f.string("name"),
            r#type: $f.string("type"),
            format: $f.string("format"),
            collection_format: $f.string("collectionFormat"),
            default: $f.any("default"),
            maximum: $f.number("maximum"),
            exclusive_maximum: $f.boolean("exclusiveMaximum"),
            minimum: $f.number("minimum"),
            exclusive_minimum: $f.boolean("exclusiveMinimum"),
            max_length: $f.integer("maxLength"),
            min_length: $f.integer("minLength"),
            pattern: $f.string("pattern"),
            max_items: $f.integer("maxItems"),
            min_items: $f.integer("minItems"),
            unique_items: $f.boolean("uniqueItems"),
            enum_values: $f.anys("enum"),
            multiple_of: $f.number("multipleOf"),
            $($extra: $value,)*
            vendor_extension: $f.finish(),
        }
    };
}

fn parameter(value: &Value, dropped: &mut Dropped) -> Option<Parameter> {
    let location = value.get("in").and_then(Value::as_str).unwrap_or_default();
    let mut f = Fields::new(value, "parameter", dropped)?;
    let kind = match location {
        "body" => {
            let mut body = BodyParameter {
                description: f.string("description"),
                name: f.string("name"),
                r#in: f.string("in"),
                required: f.boolean("required"),
                ..BodyParameter::default()
            };
            body.schema = f.value("schema").map(|s| schema(s, f.dropped()));
            body.vendor_extension = f.finish();
            ParameterKind::Body(Box::new(body))
        }
        "query" | "formData" => {
            let p = non_body!(QueryParameter, f, allow_empty_value: f.boolean("allowEmptyValue"));
            let kind = if location == "query" {
                NonBodyKind::Query(p)
            } else {
                NonBodyKind::FormData(p)
            };
            ParameterKind::NonBody(Box::new(NonBodyParameter { oneof: Some(kind) }))
        }
        "path" | "header" => {
            let p = non_body!(PathParameter, f);
            let kind = if location == "path" {
                NonBodyKind::Path(p)
            } else {
                NonBodyKind::Header(p)
            };
            ParameterKind::NonBody(Box::new(NonBodyParameter { oneof: Some(kind) }))
        }
        other => {
            f.dropped().push(format!("parameter in {other:?}"));
            return None;
        }
    };
    Some(Parameter { oneof: Some(kind) })
}

fn responses(map: &Map<String, Value>, dropped: &mut Dropped) -> Responses {
    let mut out = Responses::default();
    for (code, value) in map {
        if code.starts_with("x-") {
            out.vendor_extension.push(extension(code, value));
            continue;
        }
        let oneof = match reference(value) {
            Some(r) => ResponseOrReference::Reference(r),
            None => ResponseOrReference::Response(Box::new(response(value, dropped))),
        };
        out.response_code.push(NamedResponseValue {
            name: code.clone(),
            value: Some(ResponseValue { oneof: Some(oneof) }),
        });
    }
    out
}

fn response(value: &Value, dropped: &mut Dropped) -> Response {
    let Some(mut f) = Fields::new(value, "response", dropped) else {
        return Response::default();
    };
    let mut r = Response {
        description: f.string("description"),
        ..Response::default()
    };
    r.schema = f.value("schema").map(|s| SchemaItem {
        schema: Some(schema(s, f.dropped())),
    });
    r.vendor_extension = f.finish();
    r
}

fn security(list: &[Value], dropped: &mut Dropped) -> Vec<SecurityRequirement> {
    list.iter()
        .filter_map(|requirement| {
            let Some(map) = requirement.as_object() else {
                dropped.push("security (not an object)".into());
                return None;
            };
            let additional_properties = map
                .iter()
                .map(|(name, scopes)| NamedStringArray {
                    name: name.clone(),
                    value: Some(StringArray {
                        value: scopes
                            .as_array()
                            .map(|s| {
                                s.iter()
                                    .filter_map(Value::as_str)
                                    .map(str::to_string)
                                    .collect()
                            })
                            .unwrap_or_default(),
                    }),
                })
                .collect();
            Some(SecurityRequirement {
                additional_properties,
            })
        })
        .collect()
}

fn security_scheme(value: &Value, dropped: &mut Dropped) -> Option<SecurityScheme> {
    let kind = value
        .get("type")
        .and_then(Value::as_str)
        .unwrap_or_default();
    let mut f = Fields::new(value, "security scheme", dropped)?;
    let oneof = match kind {
        "apiKey" => SecuritySchemeKind::ApiKey(ApiKeySecurity {
            r#type: f.string("type"),
            name: f.string("name"),
            r#in: f.string("in"),
            description: f.string("description"),
            vendor_extension: f.finish(),
        }),
        "basic" => SecuritySchemeKind::Basic(BasicAuthenticationSecurity {
            r#type: f.string("type"),
            description: f.string("description"),
            vendor_extension: f.finish(),
        }),
        other => {
            f.dropped()
                .push(format!("security scheme of type {other:?}"));
            return None;
        }
    };
    Some(SecurityScheme { oneof: Some(oneof) })
}
