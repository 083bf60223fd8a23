//! The columns of a kind's Table representation (`kubectl get`).

use serde_json::Value;

/// Computes a Table cell from the whole object, for cells no single path
/// holds (a pod's `1/2` ready containers, its restart count).
pub type CellFn = fn(&Value) -> Value;

/// One column of the kind's Table representation (`kubectl get`).
#[derive(Clone, Debug)]
pub struct Column {
    pub name: String,
    /// OpenAPI type of the cells: `string`, `integer`, `date`, ...
    pub type_: String,
    /// `name` for the column naming the object, else empty.
    pub format: String,
    pub description: String,
    /// 0 = shown by default; 1 = shown with `-o wide`.
    pub priority: i32,
    /// Where the cell comes from, as a simple JSONPath (`.metadata.name`).
    pub json_path: String,
    /// When set, the cell is this function's answer instead of `json_path`'s.
    pub cell: Option<CellFn>,
    /// Cells show the time elapsed since the timestamp at `json_path`
    /// (`5m`), as Age columns and CRD `date` columns do.
    pub elapsed: bool,
}

impl PartialEq for Column {
    fn eq(&self, other: &Column) -> bool {
        // Cell functions compare by address: the same function may have
        // two, so this can only err towards "different".
        let same_cell = match (self.cell, other.cell) {
            (Some(a), Some(b)) => std::ptr::fn_addr_eq(a, b),
            (a, b) => a.is_none() && b.is_none(),
        };
        same_cell
            && (
                &self.name,
                &self.type_,
                &self.format,
                &self.description,
                self.priority,
                &self.json_path,
                self.elapsed,
            ) == (
                &other.name,
                &other.type_,
                &other.format,
                &other.description,
                other.priority,
                &other.json_path,
                other.elapsed,
            )
    }
}

impl Eq for Column {}

impl Column {
    #[must_use]
    pub fn new(
        name: &str,
        type_: &str,
        priority: i32,
        json_path: &str,
        description: &str,
    ) -> Column {
        Column {
            name: name.into(),
            type_: type_.into(),
            format: if name == "Name" {
                "name".into()
            } else {
                String::new()
            },
            description: description.into(),
            priority,
            json_path: json_path.into(),
            cell: None,
            elapsed: false,
        }
    }

    /// The `Name` column every printer starts with.
    #[must_use]
    pub fn name() -> Column {
        Column::new(
            "Name",
            "string",
            0,
            ".metadata.name",
            "Name must be unique within a namespace.",
        )
    }

    /// A `Name` column whose cell `cell` computes (a name marked
    /// `(default)`).
    #[must_use]
    pub fn name_computed(cell: CellFn) -> Column {
        Column {
            format: "name".into(),
            ..Column::computed(
                "Name",
                "string",
                0,
                cell,
                "Name must be unique within a namespace.",
            )
        }
    }

    /// The `Age` column built-in printers show: time since creation.
    #[must_use]
    pub fn age() -> Column {
        Column {
            elapsed: true,
            ..Column::new(
                "Age",
                "string",
                0,
                ".metadata.creationTimestamp",
                "CreationTimestamp is a timestamp representing the server time when this object was created.",
            )
        }
    }

    /// A column whose cells `cell` computes from the object.
    #[must_use]
    pub fn computed(
        name: &str,
        type_: &str,
        priority: i32,
        cell: CellFn,
        description: &str,
    ) -> Column {
        Column {
            cell: Some(cell),
            ..Column::new(name, type_, priority, "", description)
        }
    }

    /// The default columns of a kind without its own (Kubernetes' default table).
    #[must_use]
    pub fn defaults() -> Vec<Column> {
        vec![
            Column::name(),
            Column::new(
                "Created At",
                "date",
                0,
                ".metadata.creationTimestamp",
                "CreationTimestamp is a timestamp representing the server time when this object was created.",
            ),
        ]
    }
}
