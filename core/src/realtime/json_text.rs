//! Payloads as JSON text: written with [`quote`], read through borrowed `RawValue`s and small
//! derived structs. Nothing here builds a `serde_json::Value` tree, which would cost the page's
//! wasm the tree's code.

use std::fmt;

use serde::de::{Deserializer, MapAccess, Visitor};
use serde::Deserialize;
use serde_json::value::RawValue;

/// `text` as a JSON string literal.
pub fn quote(text: &str) -> String {
    serde_json::to_string(text).expect("a string always serializes")
}

/// A JSON string literal, or `null`.
pub fn quote_or_null(text: Option<&str>) -> String {
    text.map_or_else(|| "null".to_owned(), quote)
}

/// Whether `text` is one JSON value.
pub fn is_json(text: &str) -> bool {
    serde_json::from_str::<&RawValue>(text).is_ok()
}

/// A JSON string's content, `None` for any other value.
pub fn as_string(raw: &RawValue) -> Option<String> {
    if raw.get().starts_with('"') {
        serde_json::from_str(raw.get()).ok()
    } else {
        None
    }
}

/// An object's members in their order, values as raw text.
#[derive(Debug, Default)]
pub struct Entries<'a>(pub Vec<(String, &'a RawValue)>);

impl<'de: 'a, 'a> Deserialize<'de> for Entries<'a> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct EntriesVisitor<'a>(std::marker::PhantomData<&'a ()>);
        impl<'de: 'a, 'a> Visitor<'de> for EntriesVisitor<'a> {
            type Value = Entries<'a>;
            fn expecting(&self, formatter: &mut fmt::Formatter) -> fmt::Result {
                formatter.write_str("an object")
            }
            fn visit_map<M: MapAccess<'de>>(self, mut map: M) -> Result<Self::Value, M::Error> {
                let mut entries = Vec::new();
                while let Some(entry) = map.next_entry::<String, &'de RawValue>()? {
                    entries.push(entry);
                }
                Ok(Entries(entries))
            }
        }
        deserializer.deserialize_map(EntriesVisitor(std::marker::PhantomData))
    }
}

impl Entries<'_> {
    /// `{"k":v,...}` with each value mapped.
    pub fn write(&self, mut value: impl FnMut(&str, &RawValue) -> String) -> String {
        let members: Vec<String> = self
            .0
            .iter()
            .map(|(key, raw)| format!("{}:{}", quote(key), value(key, raw)))
            .collect();
        format!("{{{}}}", members.join(","))
    }
}

impl<'a> Entries<'a> {
    /// The members of a JSON object's text; `None` for anything else.
    pub fn parse(text: &'a str) -> Option<Self> {
        serde_json::from_str(text).ok()
    }

    /// The value of the first member named `key`.
    pub fn get(&self, key: &str) -> Option<&'a RawValue> {
        self.0
            .iter()
            .find(|(name, _)| name == key)
            .map(|(_, value)| *value)
    }

    /// A string member's content.
    pub fn string(&self, key: &str) -> Option<String> {
        self.get(key).and_then(as_string)
    }

    /// An object member's members.
    pub fn object(&self, key: &str) -> Option<Entries<'a>> {
        Entries::parse(self.get(key)?.get())
    }

    /// An array member's elements.
    pub fn array(&self, key: &str) -> Option<Vec<&'a RawValue>> {
        array(self.get(key)?.get())
    }

    /// A member's raw text, `null` when absent.
    pub fn raw(&self, key: &str) -> &'a str {
        self.get(key).map_or("null", RawValue::get)
    }
}

/// The elements of a JSON array's text; `None` for anything else.
pub fn array(text: &str) -> Option<Vec<&RawValue>> {
    serde_json::from_str(text).ok()
}

/// A message ref: a string, or an integer read as its decimal text; null is `None`. Anything
/// else is `Err`.
pub fn reference(raw: &RawValue) -> Result<Option<String>, ()> {
    let text = raw.get();
    if text == "null" {
        Ok(None)
    } else if let Some(text) = as_string(raw) {
        Ok(Some(text))
    } else if !text.is_empty()
        && text
            .bytes()
            .enumerate()
            .all(|(i, b)| b.is_ascii_digit() || (i == 0 && b == b'-'))
    {
        Ok(Some(text.to_owned()))
    } else {
        Err(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_keep_their_order_and_raw_values() {
        let entries: Entries = serde_json::from_str(r#"{"b": [1, 2], "a": "x\"y"}"#).unwrap();
        let written = entries.write(|_, raw| raw.get().to_owned());
        assert_eq!(written, r#"{"b":[1, 2],"a":"x\"y"}"#);
        assert_eq!(as_string(entries.0[1].1).as_deref(), Some("x\"y"));
        assert_eq!(as_string(entries.0[0].1), None);
    }

    #[test]
    fn refs_read_strings_and_integers() {
        let refs: Vec<Result<Option<String>, ()>> = array(r#"["7", 8, null, {}, 1.5]"#)
            .unwrap()
            .into_iter()
            .map(reference)
            .collect();
        assert_eq!(
            refs,
            [
                Ok(Some("7".into())),
                Ok(Some("8".into())),
                Ok(None),
                Err(()),
                Err(())
            ]
        );
    }

    #[test]
    fn members_are_read_by_name() {
        let object = Entries::parse(r#"{"a": "x", "b": {"c": [1, 2]}, "d": null}"#).unwrap();
        assert_eq!(object.string("a").as_deref(), Some("x"));
        assert_eq!(object.object("b").unwrap().array("c").unwrap().len(), 2);
        assert_eq!(object.raw("d"), "null");
        assert_eq!(object.raw("missing"), "null");
        assert!(Entries::parse("[1]").is_none());
    }

    #[test]
    fn quoting_escapes() {
        assert_eq!(quote("a\"b\n"), r#""a\"b\n""#);
        assert_eq!(quote_or_null(None), "null");
        assert!(is_json(" {\"a\": 1} "));
        assert!(!is_json("{"));
    }
}
