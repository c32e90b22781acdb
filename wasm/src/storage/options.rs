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

// JS values need a JS engine: these run in Chromium with the wasm-bindgen tests.
#[cfg(all(test, target_arch = "wasm32"))]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;
    use wasm_bindgen_test::*;

    wasm_bindgen_test_configure!(run_in_browser);

    fn object(entries: &[(&str, JsValue)]) -> JsValue {
        let object = Object::new();
        for (key, value) in entries {
            Reflect::set(&object, &(*key).into(), value).unwrap();
        }
        object.into()
    }

    fn reason(error: ClientError) -> String {
        match error {
            ClientError::Argument { reason, .. } => reason,
            other => panic!("expected an argument error, got {other}"),
        }
    }

    #[wasm_bindgen_test]
    fn file_options_default_as_storage_js_does() {
        for absent in [JsValue::UNDEFINED, JsValue::NULL, object(&[])] {
            assert_eq!(file_options(&absent).unwrap(), FileOptions::default());
        }
        assert_eq!(FileOptions::default().cache_control, "3600");
    }

    #[wasm_bindgen_test]
    fn cache_control_is_a_string_or_a_number_written_as_js_writes_it() {
        let read = |value: JsValue| file_options(&object(&[("cacheControl", value)]));
        assert_eq!(read("60".into()).unwrap().cache_control, "60");
        assert_eq!(read(60.into()).unwrap().cache_control, "60");
        assert_eq!(read(1.5.into()).unwrap().cache_control, "1.5");
        let wrong = reason(read(true.into()).unwrap_err());
        assert_eq!(wrong, "cacheControl is not a string or a number");
    }

    #[wasm_bindgen_test]
    fn file_options_read_every_field() {
        let headers = object(&[("x-one", "1".into())]);
        let metadata = object(&[("owner", "ada".into())]);
        let options = object(&[
            ("cacheControl", "120".into()),
            ("contentType", "image/png".into()),
            ("upsert", true.into()),
            ("metadata", metadata),
            ("headers", headers),
        ]);
        assert_eq!(
            file_options(&options).unwrap(),
            FileOptions {
                cache_control: "120".into(),
                content_type: "image/png".into(),
                upsert: true,
                metadata: Some(r#"{"owner":"ada"}"#.into()),
                headers: vec![("x-one".into(), "1".into())],
            }
        );
        for (key, value, expected) in [
            ("upsert", JsValue::from("yes"), "upsert is not a boolean"),
            ("contentType", 1.into(), "contentType is not a string"),
            (
                "headers",
                object(&[("x-one", 1.into())]),
                "headers is not an object of strings",
            ),
            ("headers", "x".into(), "headers is not an object"),
        ] {
            let error = file_options(&object(&[(key, value)])).unwrap_err();
            assert_eq!(reason(error), expected);
        }
        assert_eq!(
            reason(file_options(&5.into()).unwrap_err()),
            "expected an object"
        );
    }

    #[wasm_bindgen_test]
    fn whole_numbers_are_those_a_js_number_holds_exactly() {
        assert_eq!(whole(&0.into()), Some(0));
        assert_eq!(
            whole(&9_007_199_254_740_991.0.into()),
            Some(9_007_199_254_740_991)
        );
        for not_whole in [
            JsValue::from(-1),
            1.5.into(),
            9_007_199_254_740_992.0.into(),
            f64::NAN.into(),
            "1".into(),
        ] {
            assert_eq!(whole(&not_whole), None, "{not_whole:?}");
        }
        assert_eq!(expires_in(&60.into()).unwrap(), 60);
        assert!(expires_in(&1.5.into()).is_err());
    }

    #[wasm_bindgen_test]
    fn download_is_true_a_file_name_or_nothing() {
        let read =
            |value: JsValue| Options::read("options", &object(&[("download", value)]))?.download();
        assert_eq!(read(true.into()).unwrap(), Some(String::new()));
        assert_eq!(read("log.txt".into()).unwrap(), Some("log.txt".into()));
        assert_eq!(read(false.into()).unwrap(), None);
        assert_eq!(read("".into()).unwrap(), None);
        assert!(read(1.into()).is_err());
    }

    #[wasm_bindgen_test]
    fn bucket_limits_are_bytes_text_or_null() {
        let read = |entries: &[(&str, JsValue)]| bucket(&object(entries));
        assert_eq!(read(&[]).unwrap(), BucketOptions::default());
        let options = read(&[
            ("public", true.into()),
            ("fileSizeLimit", 1024.into()),
            ("allowedMimeTypes", Array::of1(&"image/*".into()).into()),
            ("type", "STANDARD".into()),
        ])
        .unwrap();
        assert_eq!(
            options,
            BucketOptions {
                public: Some(true),
                file_size_limit: Some(Some(FileSizeLimit::Bytes(1024))),
                allowed_mime_types: Some(Some(vec!["image/*".into()])),
                bucket_type: Some("STANDARD".into()),
            }
        );
        let text = read(&[("fileSizeLimit", "1mb".into())]).unwrap();
        assert_eq!(
            text.file_size_limit,
            Some(Some(FileSizeLimit::Text("1mb".into())))
        );
        let cleared = read(&[
            ("fileSizeLimit", JsValue::NULL),
            ("allowedMimeTypes", JsValue::NULL),
        ])
        .unwrap();
        assert_eq!(
            (cleared.file_size_limit, cleared.allowed_mime_types),
            (Some(None), Some(None))
        );
        assert!(read(&[("fileSizeLimit", true.into())]).is_err());
        let mixed = Array::of2(&"image/*".into(), &1.into());
        assert!(read(&[("allowedMimeTypes", mixed.into())]).is_err());
    }

    #[wasm_bindgen_test]
    fn list_options_read_the_sort_from_sort_by() {
        let sort_by = object(&[("column", "name".into()), ("order", "desc".into())]);
        let options = object(&[
            ("limit", 10.into()),
            ("offset", 20.into()),
            ("search", "fir".into()),
            ("sortBy", sort_by),
        ]);
        assert_eq!(
            search(&options).unwrap(),
            SearchOptions {
                limit: Some(10),
                offset: Some(20),
                search: Some("fir".into()),
                sort_column: Some("name".into()),
                sort_order: Some("desc".into()),
            }
        );
        assert_eq!(
            search(&JsValue::UNDEFINED).unwrap(),
            SearchOptions::default()
        );
        assert!(search(&object(&[("limit", (-1).into())])).is_err());
        let buckets = list_buckets(&object(&[("sortOrder", "asc".into())])).unwrap();
        assert_eq!(buckets.sort_order.as_deref(), Some("asc"));
    }

    #[wasm_bindgen_test]
    fn a_file_is_a_blob_a_form_or_sent_as_it_is() {
        let blob = Blob::new().unwrap();
        assert_eq!(file_kind(&blob.into()).unwrap(), FileKind::Blob);
        let form = FormData::new().unwrap();
        assert_eq!(file_kind(&form.into()).unwrap(), FileKind::FormData);
        let bytes = js_sys::Uint8Array::new_with_length(3);
        for other in [JsValue::from("text"), bytes.into()] {
            assert_eq!(file_kind(&other).unwrap(), FileKind::Other);
        }
        for bad in [JsValue::from(5), JsValue::UNDEFINED, JsValue::NULL] {
            assert!(file_kind(&bad).is_err(), "{bad:?}");
        }
    }
}
