//! Chained markers on a built `Schema` node: required fields, nullability,
//! enums, unknown-field handling, list and map types and patch strategies
//! (server-side apply, strategic merge patch), protobuf field numbers.

use serde_json::Value;

use super::model::Schema;

impl Schema {
    /// Marks fields as required.
    #[must_use]
    pub fn required<I, K>(mut self, names: I) -> Schema
    where
        I: IntoIterator<Item = K>,
        K: Into<String>,
    {
        self.required.extend(names.into_iter().map(Into::into));
        self
    }

    /// Accepts `null` as a value.
    #[must_use]
    pub fn nullable(mut self) -> Schema {
        self.nullable = true;
        self
    }

    #[must_use]
    pub fn describe(mut self, text: impl Into<String>) -> Schema {
        self.description = text.into();
        self
    }

    /// Restricts a string to these values.
    #[must_use]
    pub fn one_of<'a>(mut self, values: impl IntoIterator<Item = &'a str>) -> Schema {
        self.enum_values = values
            .into_iter()
            .map(|v| Value::String(v.to_owned()))
            .collect();
        self
    }

    /// Keeps undeclared fields of this object.
    #[must_use]
    pub fn preserve_unknown(mut self) -> Schema {
        self.preserve_unknown_fields = true;
        self
    }

    /// Marks an object as an embedded resource (apiVersion, kind, metadata).
    #[must_use]
    pub fn embedded(mut self) -> Schema {
        self.embedded_resource = true;
        self
    }

    /// `x-kubernetes-list-type: atomic`: the list is replaced as a whole.
    #[must_use]
    pub fn atomic_list(mut self) -> Schema {
        self.list_type = Some("atomic".into());
        self
    }

    /// `x-kubernetes-list-type: set`: scalar elements merged by value.
    #[must_use]
    pub fn set_list(mut self) -> Schema {
        self.list_type = Some("set".into());
        self
    }

    /// `x-kubernetes-list-type: map` keyed by these fields of the elements.
    #[must_use]
    pub fn map_list<'a>(mut self, keys: impl IntoIterator<Item = &'a str>) -> Schema {
        self.list_type = Some("map".into());
        self.list_map_keys = keys.into_iter().map(str::to_owned).collect();
        self
    }

    /// `x-kubernetes-map-type: atomic`: the object is replaced as a whole.
    #[must_use]
    pub fn atomic_map(mut self) -> Schema {
        self.map_type = Some("atomic".into());
        self
    }

    /// A Go `omitempty` number or boolean that is not a pointer: zero
    /// means unset (see `Schema::omit_zero`).
    #[must_use]
    pub fn omit_zero(mut self) -> Schema {
        self.omit_zero = true;
        self
    }

    /// `patchStrategy=merge` with `patchMergeKey=key` (Kubernetes' Go struct
    /// tags on lists of built-in kinds).
    #[must_use]
    pub fn merge_by(mut self, key: &str) -> Schema {
        self.patch_strategy = Some("merge".into());
        self.patch_merge_key = Some(key.to_owned());
        self
    }

    /// A patch strategy without a merge key (`merge` for scalar lists,
    /// `retainKeys`, `replace`).
    #[must_use]
    pub fn patch_strategy(mut self, strategy: &str) -> Schema {
        self.patch_strategy = Some(strategy.to_owned());
        self
    }

    /// Numbers this object's fields for protobuf: `(name, field number)`.
    /// Panics on a name the object does not declare: a typo in a kind's data.
    #[must_use]
    pub fn proto_fields<'a>(mut self, numbers: impl IntoIterator<Item = (&'a str, u32)>) -> Schema {
        for (name, number) in numbers {
            let Some((_, field)) = self.properties.iter_mut().find(|(k, _)| k == name) else {
                panic!("proto_fields: no field {name:?} to number");
            };
            field.proto = Some(number);
        }
        self
    }
}
