//! Reads the storage calls' JS arguments into core's option values. A value of the wrong type
//! is a TypeError (`invalid_argument`) thrown before anything is sent.

use geocache_core::storage::buckets::{BucketOptions, FileSizeLimit, ListBucketsOptions};
use geocache_core::storage::objects::SearchOptions;
use geocache_core::storage::{FileKind, FileOptions};
use js_sys::{Array, Object, Reflect};
use wasm_bindgen::{JsCast, JsValue};
use web_sys::{Blob, FormData};

use crate::error::ClientError;

/// An options argument: `undefined`, `null` or an object.
pub struct Options<'a> {
    name: &'static str,
    value: &'a JsValue,
}

impl<'a> Options<'a> {
    pub fn read(name: &'static str, value: &'a JsValue) -> Result<Self, ClientError> {
        if !(value.is_undefined() || value.is_null() || value.is_object()) {
            return Err(invalid(name, "expected an object"));
        }
        Ok(Options { name, value })
    }

    /// A property, `None` when absent (undefined) or when there are no options.
    fn get(&self, key: &str) -> Result<Option<JsValue>, ClientError> {
        if !self.value.is_object() {
            return Ok(None);
        }
        let value = Reflect::get(self.value, &key.into())
            .map_err(|_| invalid(self.name, &format!("{key} cannot be read")))?;
        Ok((!value.is_undefined()).then_some(value))
    }

    fn wrong(&self, key: &str, expected: &str) -> ClientError {
        invalid(self.name, &format!("{key} is not {expected}"))
    }

    pub fn string(&self, key: &str) -> Result<Option<String>, ClientError> {
        self.get(key)?
            .map(|value| value.as_string().ok_or_else(|| self.wrong(key, "a string")))
            .transpose()
    }

    pub fn boolean(&self, key: &str) -> Result<Option<bool>, ClientError> {
        self.get(key)?
            .map(|value| value.as_bool().ok_or_else(|| self.wrong(key, "a boolean")))
            .transpose()
    }

    /// A whole number from 0 to 2^53 - 1.
    pub fn count(&self, key: &str) -> Result<Option<u64>, ClientError> {
        self.get(key)?
            .map(|value| whole(&value).ok_or_else(|| self.wrong(key, "a whole number")))
            .transpose()
    }

    /// A string, or a number written as `String(n)` writes it (`cacheControl: 3600`).
    fn text_or_number(&self, key: &str) -> Result<Option<String>, ClientError> {
        self.get(key)?
            .map(|value| match value.as_f64() {
                Some(_) => value
                    .unchecked_into::<js_sys::Number>()
                    .to_string_with_radix(10)
                    .map(String::from)
                    .map_err(|_| self.wrong(key, "a string or a number")),
                None => value
                    .as_string()
                    .ok_or_else(|| self.wrong(key, "a string or a number")),
            })
            .transpose()
    }

    /// storage-js's `download` option: `true` (the stored name, `Some("")`), a file name, or
    /// nothing for `false`, `""` and absence.
    pub fn download(&self) -> Result<Option<String>, ClientError> {
        match self.get("download")? {
            None => Ok(None),
            Some(value) if value.as_bool() == Some(true) => Ok(Some(String::new())),
            Some(value) if value.as_bool() == Some(false) => Ok(None),
            Some(value) => match value.as_string() {
                Some(name) if name.is_empty() => Ok(None),
                Some(name) => Ok(Some(name)),
                None => Err(self.wrong("download", "a boolean or a string")),
            },
        }
    }
}

/// A whole number from 0 to 2^53 - 1, the integers a JS number holds exactly.
pub fn whole(value: &JsValue) -> Option<u64> {
    const MAX_SAFE: f64 = 9_007_199_254_740_991.0;
    let number = value.as_f64()?;
    // In range and integral, so the conversion is exact.
    #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
    ((0.0..=MAX_SAFE).contains(&number) && number.fract() == 0.0).then_some(number as u64)
}

pub fn invalid(name: &'static str, reason: &str) -> ClientError {
    ClientError::Argument {
        name,
        reason: reason.to_owned(),
    }
}

/// A string argument.
pub fn string_argument(name: &'static str, value: &JsValue) -> Result<String, ClientError> {
    value
        .as_string()
        .ok_or_else(|| invalid(name, "expected a string"))
}

/// An array of strings.
pub fn strings(name: &'static str, value: &JsValue) -> Result<Vec<String>, ClientError> {
    let array = value
        .dyn_ref::<Array>()
        .ok_or_else(|| invalid(name, "expected an array of strings"))?;
    array
        .iter()
        .map(|item| {
            item.as_string()
                .ok_or_else(|| invalid(name, "expected an array of strings"))
        })
        .collect()
}

/// `expiresIn`: a whole number of seconds.
pub fn expires_in(value: &JsValue) -> Result<i64, ClientError> {
    whole(value)
        .and_then(|seconds| i64::try_from(seconds).ok())
        .ok_or_else(|| invalid("expiresIn", "expected a whole number of seconds"))
}

pub fn list_buckets(value: &JsValue) -> Result<ListBucketsOptions, ClientError> {
    let options = Options::read("options", value)?;
    Ok(ListBucketsOptions {
        limit: options.count("limit")?,
        offset: options.count("offset")?,
        search: options.string("search")?,
        sort_column: options.string("sortColumn")?,
        sort_order: options.string("sortOrder")?,
    })
}

pub fn bucket(value: &JsValue) -> Result<BucketOptions, ClientError> {
    let options = Options::read("options", value)?;
    let file_size_limit = match options.get("fileSizeLimit")? {
        None => None,
        Some(value) if value.is_null() => Some(None),
        Some(value) => Some(Some(match (whole(&value), value.as_string()) {
            (Some(bytes), _) => FileSizeLimit::Bytes(bytes),
            (None, Some(text)) => FileSizeLimit::Text(text),
            (None, None) => {
                return Err(
                    options.wrong("fileSizeLimit", "a whole number of bytes, a string or null")
                )
            }
        })),
    };
    let allowed_mime_types = match options.get("allowedMimeTypes")? {
        None => None,
        Some(value) if value.is_null() => Some(None),
        Some(value) => Some(Some(strings("allowedMimeTypes", &value)?)),
    };
    Ok(BucketOptions {
        public: options.boolean("public")?,
        file_size_limit,
        allowed_mime_types,
        bucket_type: options.string("type")?,
    })
}

pub fn search(value: &JsValue) -> Result<SearchOptions, ClientError> {
    let options = Options::read("options", value)?;
    let (sort_column, sort_order) = match options.get("sortBy")? {
        None => (None, None),
        Some(sort_by) => {
            let sort_by = Options::read("options", &sort_by)?;
            (sort_by.string("column")?, sort_by.string("order")?)
        }
    };
    Ok(SearchOptions {
        limit: options.count("limit")?,
        offset: options.count("offset")?,
        search: options.string("search")?,
        sort_column,
        sort_order,
    })
}

pub fn file_options(value: &JsValue) -> Result<FileOptions, ClientError> {
    let options = Options::read("fileOptions", value)?;
    let defaults = FileOptions::default();
    let metadata = match options.get("metadata")? {
        None => None,
        Some(value) if value.is_null() => None,
        Some(value) => Some(
            js_sys::JSON::stringify(&value)
                .ok()
                .and_then(|text| text.as_string())
                .ok_or_else(|| options.wrong("metadata", "JSON data"))?,
        ),
    };
    let headers = match options.get("headers")? {
        None => Vec::new(),
        Some(value) => {
            let object = value
                .dyn_ref::<Object>()
                .ok_or_else(|| options.wrong("headers", "an object"))?;
            Object::entries(object)
                .iter()
                .map(|entry| {
                    let entry = Array::from(&entry);
                    match (entry.get(0).as_string(), entry.get(1).as_string()) {
                        (Some(name), Some(value)) => Ok((name, value)),
                        _ => Err(options.wrong("headers", "an object of strings")),
                    }
                })
                .collect::<Result<_, _>>()?
        }
    };
    Ok(FileOptions {
        cache_control: options
            .text_or_number("cacheControl")?
            .unwrap_or(defaults.cache_control),
        content_type: options
            .string("contentType")?
            .unwrap_or(defaults.content_type),
        upsert: options.boolean("upsert")?.unwrap_or(defaults.upsert),
        metadata,
        headers,
    })
}

/// What kind of body the caller gave, which decides how it is sent.
pub fn file_kind(file: &JsValue) -> Result<FileKind, ClientError> {
    if file.is_instance_of::<Blob>() {
        Ok(FileKind::Blob)
    } else if file.is_instance_of::<FormData>() {
        Ok(FileKind::FormData)
    } else if file.is_string() || file.is_object() {
        Ok(FileKind::Other)
    } else {
        Err(invalid(
            "fileBody",
            "expected a Blob, File, FormData, ArrayBuffer, typed array or string",
        ))
    }
}
