//! The two serializers the Realtime server speaks, chosen by the socket URL's `vsn`:
//! 1.0.0 sends every message as a JSON object; 2.0.0 sends text messages as JSON arrays
//! `[join_ref, ref, topic, event, payload]`, client broadcasts as binary kind 3 and server
//! broadcasts as binary kind 4 (realtime-js's `lib/serializer.ts`).

use serde_json::{json, Map, Value};

use super::error::RealtimeError;
use super::message::{Frame, Message};

/// A client broadcast push (2.0.0).
const KIND_USER_BROADCAST_PUSH: u8 = 3;
/// A server broadcast (2.0.0).
const KIND_USER_BROADCAST: u8 = 4;
const ENCODING_JSON: u8 = 1;
const BROADCAST: &str = "broadcast";

/// The serializer version, sent as `vsn`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Vsn {
    V1,
    V2,
}

impl Vsn {
    pub fn as_str(self) -> &'static str {
        match self {
            Vsn::V1 => "1.0.0",
            Vsn::V2 => "2.0.0",
        }
    }

    /// The frame `message` is sent as.
    pub fn encode(self, message: &Message) -> Result<Frame, RealtimeError> {
        match self {
            Vsn::V1 => Ok(Frame::Text(
                json!({
                    "topic": message.topic,
                    "event": message.event,
                    "payload": message.payload,
                    "ref": message.msg_ref,
                    "join_ref": message.join_ref,
                })
                .to_string(),
            )),
            Vsn::V2 => match broadcast_event(message) {
                Some(event) => encode_broadcast_push(message, event).map(Frame::Binary),
                None => Ok(Frame::Text(
                    json!([
                        message.join_ref,
                        message.msg_ref,
                        message.topic,
                        message.event,
                        message.payload
                    ])
                    .to_string(),
                )),
            },
        }
    }

    /// The message a received frame holds.
    pub fn decode(self, frame: &Frame) -> Result<Message, RealtimeError> {
        match (self, frame) {
            (Vsn::V1, Frame::Text(text)) => decode_object(text),
            (Vsn::V2, Frame::Text(text)) => decode_array(text),
            (Vsn::V2, Frame::Binary(bytes)) => decode_broadcast(bytes),
            (Vsn::V1, Frame::Binary(_)) => Err(RealtimeError::invalid(
                "binary frames are not part of serializer 1.0.0",
            )),
        }
    }
}

/// The user event of a broadcast push, when it goes out as binary: event `broadcast` whose
/// payload has a string `event`.
fn broadcast_event(message: &Message) -> Option<&str> {
    if message.event != BROADCAST {
        return None;
    }
    message.payload.get("event")?.as_str()
}

/// `03`, the lengths of join_ref, ref, topic, event and meta (always empty), the encoding
/// (JSON), the fields, then the payload's `payload` (`{}` when absent) as JSON text.
fn encode_broadcast_push(message: &Message, event: &str) -> Result<Vec<u8>, RealtimeError> {
    let join_ref = message.join_ref.as_deref().unwrap_or("");
    let msg_ref = message.msg_ref.as_deref().unwrap_or("");
    let fields = [
        ("join_ref", join_ref),
        ("ref", msg_ref),
        ("topic", message.topic.as_str()),
        ("event", event),
    ];
    let user_payload = match message.payload.get("payload") {
        Some(payload) if !payload.is_null() => payload.to_string(),
        _ => "{}".to_owned(),
    };
    let mut bytes = vec![KIND_USER_BROADCAST_PUSH];
    for (field, value) in fields {
        bytes.push(length_byte(field, value)?);
    }
    bytes.extend([0, ENCODING_JSON]);
    for (_, value) in fields {
        bytes.extend_from_slice(value.as_bytes());
    }
    bytes.extend_from_slice(user_payload.as_bytes());
    Ok(bytes)
}

fn length_byte(field: &'static str, value: &str) -> Result<u8, RealtimeError> {
    u8::try_from(value.len()).map_err(|_| RealtimeError::FieldTooLong {
        field,
        len: value.len(),
    })
}

/// `{topic, event, payload, ref, join_ref}` (1.0.0).
fn decode_object(text: &str) -> Result<Message, RealtimeError> {
    let value: Value = serde_json::from_str(text)
        .map_err(|error| RealtimeError::invalid(format!("not JSON: {error}")))?;
    let Value::Object(mut object) = value else {
        return Err(RealtimeError::invalid("expected a JSON object"));
    };
    let mut take = |key: &str| object.remove(key).unwrap_or(Value::Null);
    let (join_ref, msg_ref) = (take("join_ref"), take("ref"));
    let (topic, event, payload) = (take("topic"), take("event"), take("payload"));
    message(join_ref, msg_ref, topic, event, payload)
}

/// `[join_ref, ref, topic, event, payload]` (2.0.0 text).
fn decode_array(text: &str) -> Result<Message, RealtimeError> {
    let value: Value = serde_json::from_str(text)
        .map_err(|error| RealtimeError::invalid(format!("not JSON: {error}")))?;
    let Value::Array(items) = value else {
        return Err(RealtimeError::invalid("expected a JSON array"));
    };
    let Ok([join_ref, msg_ref, topic, event, payload]) = <[Value; 5]>::try_from(items) else {
        return Err(RealtimeError::invalid("expected 5 elements"));
    };
    message(join_ref, msg_ref, topic, event, payload)
}

fn message(
    join_ref: Value,
    msg_ref: Value,
    topic: Value,
    event: Value,
    payload: Value,
) -> Result<Message, RealtimeError> {
    let text = |value: Value, name: &str| match value {
        Value::String(text) => Ok(text),
        other => Err(RealtimeError::invalid(format!(
            "{name} is not a string: {other}"
        ))),
    };
    // Refs are strings; a number is read as its decimal text, null as absent.
    let reference = |value: Value, name: &str| match value {
        Value::Null => Ok(None),
        Value::Number(number) => Ok(Some(number.to_string())),
        other => text(other, name).map(Some),
    };
    Ok(Message {
        join_ref: reference(join_ref, "join_ref")?,
        msg_ref: reference(msg_ref, "ref")?,
        topic: text(topic, "topic")?,
        event: text(event, "event")?,
        payload,
    })
}

/// `04`, the lengths of topic, event and meta, the encoding, then topic, event, meta (JSON or
/// empty) and the payload: decoded as event `broadcast` with `{type, event, payload[, meta]}`.
fn decode_broadcast(bytes: &[u8]) -> Result<Message, RealtimeError> {
    let truncated = || RealtimeError::invalid("binary frame is truncated");
    let kind = *bytes.first().ok_or_else(truncated)?;
    if kind != KIND_USER_BROADCAST {
        return Err(RealtimeError::UnsupportedKind { kind });
    }
    let header = bytes.get(1..5).ok_or_else(truncated)?;
    let (topic_len, event_len, meta_len) = (header[0], header[1], header[2]);
    if header[3] != ENCODING_JSON {
        return Err(RealtimeError::invalid(
            "binary broadcast payloads are not supported",
        ));
    }
    let mut rest = &bytes[5..];
    let mut field = |len: u8, name: &str| -> Result<String, RealtimeError> {
        let len = usize::from(len);
        let part = rest.get(..len).ok_or_else(truncated)?;
        rest = &rest[len..];
        String::from_utf8(part.to_vec())
            .map_err(|_| RealtimeError::invalid(format!("{name} is not UTF-8")))
    };
    let topic = field(topic_len, "topic")?;
    let event = field(event_len, "event")?;
    let meta = field(meta_len, "meta")?;
    let payload: Value = serde_json::from_slice(rest)
        .map_err(|error| RealtimeError::invalid(format!("payload is not JSON: {error}")))?;
    let mut data = Map::new();
    data.insert("type".into(), BROADCAST.into());
    data.insert("event".into(), event.into());
    data.insert("payload".into(), payload);
    if !meta.is_empty() {
        let meta: Value = serde_json::from_str(&meta)
            .map_err(|error| RealtimeError::invalid(format!("meta is not JSON: {error}")))?;
        data.insert("meta".into(), meta);
    }
    Ok(Message::new(topic, BROADCAST, Value::Object(data)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn push(event: &str, payload: Value) -> Message {
        Message::new("realtime:room", event, payload).with_refs(Some("1".into()), Some("2".into()))
    }

    #[test]
    fn v1_sends_json_objects() {
        let frame = Vsn::V1.encode(&push("phx_join", json!({"a": 1}))).unwrap();
        let Frame::Text(text) = frame else {
            panic!("text expected")
        };
        let value: Value = serde_json::from_str(&text).unwrap();
        assert_eq!(
            value,
            json!({"topic": "realtime:room", "event": "phx_join", "payload": {"a": 1},
                   "ref": "2", "join_ref": "1"})
        );
    }

    #[test]
    fn v2_sends_text_messages_as_arrays() {
        let frame = Vsn::V2.encode(&push("phx_join", json!({}))).unwrap();
        assert_eq!(
            frame,
            Frame::Text(r#"["1","2","realtime:room","phx_join",{}]"#.into())
        );
        let heartbeat =
            Message::new("phoenix", "heartbeat", json!({})).with_refs(None, Some("7".into()));
        assert_eq!(
            Vsn::V2.encode(&heartbeat).unwrap(),
            Frame::Text(r#"[null,"7","phoenix","heartbeat",{}]"#.into())
        );
    }

    #[test]
    fn v2_sends_client_broadcasts_as_binary_kind_3() {
        let message = push(
            "broadcast",
            json!({"type": "broadcast", "event": "hi", "payload": {"n": 1}}),
        );
        let Frame::Binary(bytes) = Vsn::V2.encode(&message).unwrap() else {
            panic!("binary expected")
        };
        let mut expected = vec![3, 1, 1, 13, 2, 0, 1];
        expected.extend_from_slice(b"12realtime:roomhi{\"n\":1}");
        assert_eq!(bytes, expected);
    }

    #[test]
    fn a_broadcast_without_payload_sends_an_empty_object() {
        let message = push("broadcast", json!({"type": "broadcast", "event": "e"}));
        let Frame::Binary(bytes) = Vsn::V2.encode(&message).unwrap() else {
            panic!("binary expected")
        };
        assert!(bytes.ends_with(b"e{}"));
    }

    #[test]
    fn a_broadcast_without_a_string_event_stays_text() {
        let message = push("broadcast", json!({"type": "broadcast"}));
        assert!(matches!(Vsn::V2.encode(&message), Ok(Frame::Text(_))));
    }

    #[test]
    fn binary_fields_longer_than_255_bytes_are_refused() {
        let message = push(
            "broadcast",
            json!({"type": "broadcast", "event": "x".repeat(256), "payload": {}}),
        );
        assert_eq!(
            Vsn::V2.encode(&message),
            Err(RealtimeError::FieldTooLong {
                field: "event",
                len: 256
            })
        );
    }

    #[test]
    fn v2_reads_server_broadcasts_of_kind_4() {
        let mut bytes = vec![4, 13, 2, 8, 1];
        bytes.extend_from_slice(b"realtime:roomhi{\"id\":1}{\"n\":1}");
        let message = Vsn::V2.decode(&Frame::Binary(bytes)).unwrap();
        assert_eq!(message.topic, "realtime:room");
        assert_eq!(message.event, "broadcast");
        assert_eq!((message.join_ref, message.msg_ref), (None, None));
        assert_eq!(
            message.payload,
            json!({"type": "broadcast", "event": "hi", "payload": {"n": 1}, "meta": {"id": 1}})
        );
    }

    #[test]
    fn v2_refuses_other_binary_kinds_and_truncated_frames() {
        assert_eq!(
            Vsn::V2.decode(&Frame::Binary(vec![3, 0, 0, 0, 0, 0, 1])),
            Err(RealtimeError::UnsupportedKind { kind: 3 })
        );
        let mut short = vec![4, 13, 2, 0, 1];
        short.extend_from_slice(b"realtime:");
        assert!(matches!(
            Vsn::V2.decode(&Frame::Binary(short)),
            Err(RealtimeError::InvalidFrame { .. })
        ));
        assert!(Vsn::V2.decode(&Frame::Binary(vec![])).is_err());
        let binary_payload = vec![4, 1, 1, 0, 0, b't', b'e'];
        assert!(Vsn::V2.decode(&Frame::Binary(binary_payload)).is_err());
    }

    #[test]
    fn v2_reads_arrays_with_null_or_numeric_refs() {
        let message = Vsn::V2
            .decode(&Frame::Text(
                r#"[null,3,"realtime:room","phx_reply",{"status":"ok"}]"#.into(),
            ))
            .unwrap();
        assert_eq!(message.join_ref, None);
        assert_eq!(message.msg_ref.as_deref(), Some("3"));
        assert_eq!(message.payload, json!({"status": "ok"}));
    }

    #[test]
    fn malformed_text_frames_are_refused() {
        for text in [
            "nope",
            "{}",
            r#"[null,null,"t","e"]"#,
            r#"[null,null,1,"e",{}]"#,
            r#"[{},null,"t","e",{}]"#,
        ] {
            assert!(Vsn::V2.decode(&Frame::Text(text.into())).is_err(), "{text}");
        }
        assert!(Vsn::V1.decode(&Frame::Text("[]".into())).is_err());
        assert!(Vsn::V1
            .decode(&Frame::Text(r#"{"topic":"t"}"#.into()))
            .is_err());
        assert!(Vsn::V1.decode(&Frame::Binary(vec![4])).is_err());
    }

    fn any_ref() -> impl Strategy<Value = Option<String>> {
        proptest::option::of("[0-9]{1,6}")
    }

    fn any_payload() -> impl Strategy<Value = Value> {
        let leaf = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::from),
            any::<i64>().prop_map(Value::from),
            ".{0,8}".prop_map(Value::from),
        ];
        leaf.prop_recursive(3, 16, 4, |inner| {
            prop_oneof![
                proptest::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
                proptest::collection::btree_map("[a-z]{1,4}", inner, 0..4)
                    .prop_map(|map| Value::Object(map.into_iter().collect())),
            ]
        })
    }

    proptest! {
        #[test]
        fn every_text_message_round_trips(
            join_ref in any_ref(),
            msg_ref in any_ref(),
            topic in ".{0,20}",
            event in "[a-z_]{1,12}",
            payload in any_payload(),
            v1 in any::<bool>(),
        ) {
            prop_assume!(event != BROADCAST);
            let vsn = if v1 { Vsn::V1 } else { Vsn::V2 };
            let message = Message { join_ref, msg_ref, topic, event, payload };
            let frame = vsn.encode(&message).unwrap();
            prop_assert_eq!(vsn.decode(&frame).unwrap(), message);
        }

        /// A kind 3 push, re-framed as the server relays it (kind 4), reads back as the
        /// broadcast that was sent.
        #[test]
        fn broadcasts_round_trip_through_the_binary_kinds(
            topic in "[a-z:]{0,40}",
            event in "[a-z]{1,20}",
            payload in any_payload(),
        ) {
            prop_assume!(!payload.is_null());
            let sent = json!({"type": "broadcast", "event": event, "payload": payload});
            let message = Message::new(topic.clone(), BROADCAST, sent.clone())
                .with_refs(Some("1".into()), Some("22".into()));
            let Frame::Binary(push) = Vsn::V2.encode(&message).unwrap() else {
                panic!("binary expected")
            };
            let (lengths, fields) = push[1..].split_at(6);
            let body = &fields[usize::from(lengths[0]) + usize::from(lengths[1])..];
            let mut relayed = vec![4, lengths[2], lengths[3], 0, lengths[5]];
            relayed.extend_from_slice(body);
            let received = Vsn::V2.decode(&Frame::Binary(relayed)).unwrap();
            prop_assert_eq!(received.topic, topic);
            prop_assert_eq!(received.payload, sent);
        }
    }
}
