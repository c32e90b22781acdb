//! One JSON value read without building a tree: strings (borrowed from the text where they have
//! no escapes) and numbers are kept, anything else is reduced to what an error message says about
//! it. Validation reads entries and error bodies through this in one pass, so a 20 MB list never
//! becomes a `serde_json::Value`, and no serde type error (whose messages format floats) is made.

use std::borrow::Cow;
use std::fmt;

use serde::de::{
    Deserialize, DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor,
};
use serde_json::Number;

/// A JSON value as validation sees it.
#[derive(Debug, Clone, PartialEq)]
pub enum Shape<'a> {
    Null,
    Bool(bool),
    Number(Number),
    String(Cow<'a, str>),
    /// An array, with how many items it had.
    Array(usize),
    Object,
}

/// Longest string shown in a message, in characters; longer ones are cut with an ellipsis.
const SHOWN_STRING_CHARS: usize = 60;

/// Names a JSON value (or its absence) for an error message: `number 5`, `string "x"`,
/// `array of 2 items`, `object`, `nothing`.
pub fn describe(shape: Option<&Shape<'_>>) -> String {
    match shape {
        None => "nothing".into(),
        Some(Shape::Null) => "null".into(),
        Some(Shape::Bool(flag)) => format!("boolean {flag}"),
        Some(Shape::Number(number)) => format!("number {number}"),
        Some(Shape::String(text)) => {
            let cut = text.char_indices().nth(SHOWN_STRING_CHARS);
            match cut.and_then(|(cut, _)| text.get(..cut)) {
                Some(shown) => format!("string {}…", json_string(shown)),
                None => format!("string {}", json_string(text)),
            }
        }
        Some(Shape::Array(items)) => format!("array of {items} items"),
        Some(Shape::Object) => "object".into(),
    }
}

/// `text` as a JSON string literal, as `JSON.stringify` writes it.
pub fn json_string(text: &str) -> String {
    serde_json::to_string(text).expect("serialising a string to JSON cannot fail")
}

/// For a visitor that wants one kind of container: forwards every scalar visit to
/// [`ShapeVisitor`] and hands the shape to `$other(self, shape)`. (Serde's default visits would
/// build type errors, whose messages pull float formatting into the wasm.)
macro_rules! other_shapes {
    ($other:expr) => {
        fn visit_unit<E: serde::de::Error>(self) -> Result<Self::Value, E> {
            Ok($other(
                self,
                $crate::logbook::json_shape::ShapeVisitor.visit_unit()?,
            ))
        }
        fn visit_bool<E: serde::de::Error>(self, flag: bool) -> Result<Self::Value, E> {
            Ok($other(
                self,
                $crate::logbook::json_shape::ShapeVisitor.visit_bool(flag)?,
            ))
        }
        fn visit_u64<E: serde::de::Error>(self, number: u64) -> Result<Self::Value, E> {
            Ok($other(
                self,
                $crate::logbook::json_shape::ShapeVisitor.visit_u64(number)?,
            ))
        }
        fn visit_i64<E: serde::de::Error>(self, number: i64) -> Result<Self::Value, E> {
            Ok($other(
                self,
                $crate::logbook::json_shape::ShapeVisitor.visit_i64(number)?,
            ))
        }
        fn visit_f64<E: serde::de::Error>(self, number: f64) -> Result<Self::Value, E> {
            Ok($other(
                self,
                $crate::logbook::json_shape::ShapeVisitor.visit_f64(number)?,
            ))
        }
        fn visit_str<E: serde::de::Error>(self, text: &str) -> Result<Self::Value, E> {
            Ok($other(
                self,
                $crate::logbook::json_shape::ShapeVisitor.visit_str(text)?,
            ))
        }
    };
}
pub(crate) use other_shapes;

impl<'de> Deserialize<'de> for Shape<'de> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(ShapeVisitor)
    }
}

/// Reads any value into a [`Shape`]; arrays and objects are read through (so syntax is still
/// checked) and only counted.
pub struct ShapeVisitor;

impl<'de> Visitor<'de> for ShapeVisitor {
    type Value = Shape<'de>;

    fn expecting(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str("any JSON value")
    }

    fn visit_unit<E>(self) -> Result<Self::Value, E> {
        Ok(Shape::Null)
    }

    fn visit_bool<E>(self, flag: bool) -> Result<Self::Value, E> {
        Ok(Shape::Bool(flag))
    }

    fn visit_u64<E>(self, number: u64) -> Result<Self::Value, E> {
        Ok(Shape::Number(number.into()))
    }

    fn visit_i64<E>(self, number: i64) -> Result<Self::Value, E> {
        Ok(Shape::Number(number.into()))
    }

    fn visit_f64<E>(self, number: f64) -> Result<Self::Value, E> {
        // serde_json only produces finite floats, so this always succeeds.
        Ok(Number::from_f64(number).map_or(Shape::Null, Shape::Number))
    }

    fn visit_borrowed_str<E>(self, text: &'de str) -> Result<Self::Value, E> {
        Ok(Shape::String(Cow::Borrowed(text)))
    }

    fn visit_str<E>(self, text: &str) -> Result<Self::Value, E> {
        Ok(Shape::String(Cow::Owned(text.to_owned())))
    }

    fn visit_string<E>(self, text: String) -> Result<Self::Value, E> {
        Ok(Shape::String(Cow::Owned(text)))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut items: A) -> Result<Self::Value, A::Error> {
        let mut count = 0;
        while items.next_element::<IgnoredAny>()?.is_some() {
            count += 1;
        }
        Ok(Shape::Array(count))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut entries: A) -> Result<Self::Value, A::Error> {
        while entries.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
        Ok(Shape::Object)
    }
}

impl Shape<'_> {
    /// The number as JS would hold it.
    pub fn as_f64(&self) -> Option<f64> {
        match self {
            Shape::Number(number) => number.as_f64(),
            _ => None,
        }
    }
}

/// The fields of an object that match `keys`, read as [`Shape`]s; other keys are skipped. A key
/// that appears twice counts with its last value, as `JSON.parse` and `serde_json::Value` have it.
pub fn read_fields<'de, A: MapAccess<'de>, const N: usize>(
    mut entries: A,
    keys: [&str; N],
) -> Result<[Option<Shape<'de>>; N], A::Error> {
    let mut values: [Option<Shape<'de>>; N] = std::array::from_fn(|_| None);
    while let Some(known) = entries.next_key_seed(KeySeed(&keys))? {
        match known {
            Some(index) => values[index] = Some(entries.next_value()?),
            None => {
                entries.next_value::<IgnoredAny>()?;
            }
        }
    }
    Ok(values)
}

/// Reads an object key as its position among the known keys, without allocating.
struct KeySeed<'k, const N: usize>(&'k [&'k str; N]);

impl<'de, const N: usize> DeserializeSeed<'de> for KeySeed<'_, N> {
    type Value = Option<usize>;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de, const N: usize> Visitor<'de> for KeySeed<'_, N> {
    type Value = Option<usize>;

    fn expecting(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str("an object key")
    }

    fn visit_str<E>(self, key: &str) -> Result<Self::Value, E> {
        Ok(self.0.iter().position(|known| *known == key))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::Value;

    fn shape(json: &str) -> Shape<'_> {
        serde_json::from_str(json).unwrap()
    }

    #[test]
    fn values_are_read_as_shapes() {
        assert_eq!(shape("null"), Shape::Null);
        assert_eq!(shape("true"), Shape::Bool(true));
        assert_eq!(shape("5").as_f64(), Some(5.0));
        assert_eq!(shape("-5").as_f64(), Some(-5.0));
        assert_eq!(shape("1.5e3").as_f64(), Some(1500.0));
        assert_eq!(shape("[1,[2,3],{}]"), Shape::Array(3));
        assert_eq!(shape(r#"{"a":[1,{"b":2}]}"#), Shape::Object);
        assert!(matches!(
            shape(r#""plain""#),
            Shape::String(Cow::Borrowed("plain"))
        ));
        assert!(matches!(shape(r#""a\nb""#), Shape::String(Cow::Owned(text)) if text == "a\nb"));
        assert!(serde_json::from_str::<Shape<'_>>("[1,]").is_err());
    }

    #[test]
    fn descriptions_name_the_value() {
        let cases = [
            ("null", "null"),
            ("false", "boolean false"),
            ("5", "number 5"),
            ("-7", "number -7"),
            ("1.5", "number 1.5"),
            ("1e300", "number 1e+300"),
            (r#""x\"y""#, r#"string "x\"y""#),
            ("[1,2]", "array of 2 items"),
            ("{}", "object"),
        ];
        for (json, description) in cases {
            assert_eq!(describe(Some(&shape(json))), description, "{json}");
        }
        assert_eq!(describe(None), "nothing");
        let long = format!("\"{}\"", "é".repeat(61));
        assert_eq!(
            describe(Some(&shape(&long))),
            format!("string \"{}\"…", "é".repeat(60))
        );
    }

    /// The same texts `serde_json::Value`'s Display gives, which the messages used before.
    #[test]
    fn numbers_and_strings_are_described_as_serde_json_writes_them() {
        for json in [
            "0",
            "-0",
            "12345678901234567890",
            "-9223372036854775808",
            "0.1",
            "1e-7",
            "2.5E+10",
            "\"\\u0000\\u2028😀\"",
        ] {
            let value: Value = serde_json::from_str(json).unwrap();
            let kind = if value.is_number() {
                "number"
            } else {
                "string"
            };
            assert_eq!(
                describe(Some(&shape(json))),
                format!("{kind} {value}"),
                "{json}"
            );
        }
    }

    #[test]
    fn fields_are_picked_by_name_and_the_last_duplicate_wins() {
        struct Fields;
        impl<'de> Visitor<'de> for Fields {
            type Value = [Option<Shape<'de>>; 2];
            fn expecting(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
                formatter.write_str("an object")
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
                read_fields(map, ["a", "b"])
            }
        }
        let mut deserializer =
            serde_json::Deserializer::from_str(r#"{"a":1,"x":{"a":2},"\u0062":"y","a":true}"#);
        let [a, b] = deserializer.deserialize_map(Fields).unwrap();
        assert_eq!(a, Some(Shape::Bool(true)));
        assert_eq!(b, Some(Shape::String("y".into())));
    }
}
