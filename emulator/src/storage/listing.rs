//! One level of a bucket, as Storage's `list` returns it: the files directly under a prefix
//! and its sub-folders (which have no row: `id` and the times are null), filtered by a
//! case-insensitive name prefix (`search`), sorted, then paged.

use crate::storage::error::StorageError;
use crate::storage::store::ObjectRecord;
use serde::Deserialize;
use std::cmp::Ordering;

/// The columns a listing can be sorted by.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SortColumn {
    Name,
    CreatedAt,
    UpdatedAt,
    LastAccessedAt,
}

impl SortColumn {
    pub fn parse(text: &str) -> Result<SortColumn, StorageError> {
        match text {
            "name" => Ok(SortColumn::Name),
            "created_at" => Ok(SortColumn::CreatedAt),
            "updated_at" => Ok(SortColumn::UpdatedAt),
            "last_accessed_at" => Ok(SortColumn::LastAccessedAt),
            _ => Err(StorageError::invalid_parameter("sortBy.column")),
        }
    }
}

/// `sortBy` of a list request.
#[derive(Debug, Clone, Deserialize)]
pub struct SortBy {
    pub column: Option<String>,
    pub order: Option<String>,
}

/// A sort: column and whether it descends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Sort {
    pub column: SortColumn,
    pub descending: bool,
}

impl Sort {
    pub fn parse(sort_by: Option<&SortBy>) -> Result<Sort, StorageError> {
        let column = match sort_by.and_then(|sort| sort.column.as_deref()) {
            None => SortColumn::Name,
            Some(text) => SortColumn::parse(text)?,
        };
        let descending = match sort_by.and_then(|sort| sort.order.as_deref()) {
            None => false,
            Some(order) if order.eq_ignore_ascii_case("asc") => false,
            Some(order) if order.eq_ignore_ascii_case("desc") => true,
            Some(_) => return Err(StorageError::invalid_parameter("sortBy.order")),
        };
        Ok(Sort { column, descending })
    }
}

/// One entry of a listing: a file (with its row) or a folder.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Entry<'a> {
    File {
        name: &'a str,
        object: &'a ObjectRecord,
    },
    Folder {
        name: &'a str,
    },
}

impl Entry<'_> {
    pub fn name(&self) -> &str {
        match self {
            Entry::File { name, .. } | Entry::Folder { name } => name,
        }
    }

    fn time(&self, column: SortColumn) -> Option<i64> {
        let Entry::File { object, .. } = self else {
            return None;
        };
        match column {
            SortColumn::Name => None,
            SortColumn::CreatedAt => Some(object.created_at),
            SortColumn::UpdatedAt => Some(object.updated_at),
            SortColumn::LastAccessedAt => Some(object.last_accessed_at),
        }
    }
}

/// The prefix as Storage uses it: a folder path with its trailing `/`, or empty.
pub fn folder_prefix(prefix: &str) -> String {
    if prefix.is_empty() || prefix.ends_with('/') {
        prefix.to_owned()
    } else {
        format!("{prefix}/")
    }
}

/// One level under `prefix` of `objects` (every object whose name starts with the prefix).
pub fn level<'a>(
    objects: &'a [ObjectRecord],
    prefix: &str,
    search: &str,
    sort: Sort,
    offset: usize,
    limit: usize,
) -> Vec<Entry<'a>> {
    let search = search.to_lowercase();
    let mut entries: Vec<Entry<'a>> = Vec::new();
    for object in objects {
        let Some(rest) = object.name.strip_prefix(prefix) else {
            continue;
        };
        let entry = match rest.split_once('/') {
            Some((folder, _)) => Entry::Folder { name: folder },
            None => Entry::File { name: rest, object },
        };
        if !entry.name().to_lowercase().starts_with(&search) {
            continue;
        }
        let duplicate_folder = matches!(entry, Entry::Folder { .. })
            && entries
                .iter()
                .any(|seen| matches!(seen, Entry::Folder { name } if *name == entry.name()));
        if !duplicate_folder {
            entries.push(entry);
        }
    }
    entries.sort_by(|a, b| {
        let ordering = match sort.column {
            SortColumn::Name => a.name().cmp(b.name()),
            // PostgreSQL sorts NULLs (folders) last ascending and first descending: reversing
            // an ascending order with NULLs last gives exactly that.
            column => match (a.time(column), b.time(column)) {
                (Some(x), Some(y)) => x.cmp(&y),
                (Some(_), None) => Ordering::Less,
                (None, Some(_)) => Ordering::Greater,
                (None, None) => Ordering::Equal,
            }
            .then_with(|| a.name().cmp(b.name())),
        };
        if sort.descending {
            ordering.reverse()
        } else {
            ordering
        }
    });
    entries.into_iter().skip(offset).take(limit).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn object(name: &str, created_at: i64) -> ObjectRecord {
        ObjectRecord {
            id: format!("id-{name}"),
            bucket_id: "b".to_owned(),
            name: name.to_owned(),
            owner: None,
            file: "f".to_owned(),
            size: 1,
            mimetype: "text/plain".to_owned(),
            cache_control: "no-cache".to_owned(),
            etag: "\"e\"".to_owned(),
            user_metadata: None,
            created_at,
            updated_at: created_at,
            last_accessed_at: created_at,
        }
    }

    fn names(entries: &[Entry<'_>]) -> Vec<String> {
        entries
            .iter()
            .map(|entry| match entry {
                Entry::File { name, .. } => (*name).to_owned(),
                Entry::Folder { name } => format!("{name}/"),
            })
            .collect()
    }

    const BY_NAME: Sort = Sort {
        column: SortColumn::Name,
        descending: false,
    };

    #[test]
    fn one_level_with_folders_once() {
        let objects = [
            object("b.txt", 3),
            object("a/x.txt", 1),
            object("a/y/z.txt", 2),
            object("C.txt", 4),
        ];
        assert_eq!(
            names(&level(&objects, "", "", BY_NAME, 0, 100)),
            ["C.txt", "a/", "b.txt"]
        );
        assert_eq!(
            names(&level(&objects, "a/", "", BY_NAME, 0, 100)),
            ["x.txt", "y/"]
        );
        assert_eq!(names(&level(&objects, "", "c", BY_NAME, 0, 100)), ["C.txt"]);
        assert_eq!(names(&level(&objects, "", "", BY_NAME, 1, 1)), ["a/"]);
    }

    #[test]
    fn time_sorts_put_folders_last_ascending_and_first_descending() {
        let objects = [object("new", 9), object("old", 1), object("dir/f", 5)];
        let by_time = |descending| Sort {
            column: SortColumn::CreatedAt,
            descending,
        };
        assert_eq!(
            names(&level(&objects, "", "", by_time(false), 0, 100)),
            ["old", "new", "dir/"]
        );
        assert_eq!(
            names(&level(&objects, "", "", by_time(true), 0, 100)),
            ["dir/", "new", "old"]
        );
        assert_eq!(folder_prefix("a"), "a/");
        assert_eq!(folder_prefix("a/"), "a/");
        assert_eq!(folder_prefix(""), "");
    }

    #[test]
    fn bad_sorts_are_refused() {
        let sort = |column: &str, order: &str| {
            Sort::parse(Some(&SortBy {
                column: Some(column.to_owned()),
                order: Some(order.to_owned()),
            }))
        };
        assert_eq!(
            sort("created_at", "DESC").unwrap(),
            Sort {
                column: SortColumn::CreatedAt,
                descending: true
            }
        );
        assert!(sort("size", "asc").is_err());
        assert!(sort("name", "sideways").is_err());
    }
}
