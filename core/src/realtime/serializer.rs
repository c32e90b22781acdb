//! The two serializers the Realtime server speaks, chosen by the socket URL's `vsn`:
//! 1.0.0 sends every message as a JSON object; 2.0.0 sends text messages as JSON arrays
//! `[join_ref, ref, topic, event, payload]`, client broadcasts as binary kind 3 and server
//! broadcasts as binary kind 4 (realtime-js's `lib/serializer.ts`).

use serde_json::value::RawValue;

use super::error::RealtimeError;
use super::json_text::{array, as_string, quote, quote_or_null, reference, Entries};
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

/// A client broadcast: `channel.send({ type: 'broadcast', event, payload })`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BroadcastPush<'a> {
    pub topic: &'a str,
    pub join_ref: Option<&'a str>,
    pub msg_ref: &'a str,
    pub event: &'a str,
    /// The user's payload as JSON text.
    pub payload: &'a str,
}

impl Vsn {
    pub fn as_str(self) -> &'static str {
        match self {
            Vsn::V1 => "1.0.0",
            Vsn::V2 => "2.0.0",
        }
    }

    /// The frame `message` is sent as (a text frame in both versions).
    pub fn encode(self, message: &Message) -> Frame {
        let join_ref = quote_or_null(message.join_ref.as_deref());
        let msg_ref = quote_or_null(message.msg_ref.as_deref());
        let (topic, event) = (quote(&message.topic), quote(&message.event));
        let payload = &message.payload;
        Frame::Text(match self {
            Vsn::V1 => format!(
                r#"{{"topic":{topic},"event":{event},"payload":{payload},"ref":{msg_ref},"join_ref":{join_ref}}}"#
            ),
            Vsn::V2 => format!("[{join_ref},{msg_ref},{topic},{event},{payload}]"),
        })
    }

    /// The frame a broadcast is sent as: in 2.0.0 binary kind 3 (`03`, the lengths of
    /// join_ref, ref, topic, event and meta (always empty), the encoding (JSON), the fields,
    /// then the payload); in 1.0.0 the `broadcast` message `{type, event, payload}`.
    pub fn encode_broadcast(self, push: &BroadcastPush) -> Result<Frame, RealtimeError> {
        if self == Vsn::V1 {
            let payload = format!(
                r#"{{"type":"broadcast","event":{},"payload":{}}}"#,
                quote(push.event),
                push.payload
            );
            let message = Message::new(push.topic, BROADCAST, payload).with_refs(
                push.join_ref.map(str::to_owned),
                Some(push.msg_ref.to_owned()),
            );
            return Ok(self.encode(&message));
        }
        let fields = [
            ("join_ref", push.join_ref.unwrap_or("")),
            ("ref", push.msg_ref),
            ("topic", push.topic),
            ("event", push.event),
        ];
        let mut bytes = vec![KIND_USER_BROADCAST_PUSH];
        for (field, value) in fields {
            bytes.push(
                u8::try_from(value.len()).map_err(|_| RealtimeError::FieldTooLong {
                    field,
                    len: value.len(),
                })?,
            );
        }
        bytes.extend([0, ENCODING_JSON]);
        for (_, value) in fields {
            bytes.extend_from_slice(value.as_bytes());
        }
        bytes.extend_from_slice(push.payload.as_bytes());
        Ok(Frame::Binary(bytes))
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

fn not_json(error: serde_json::Error) -> RealtimeError {
    RealtimeError::invalid(error.to_string())
}

/// A message from its five parts, each raw JSON.
fn message(
    join_ref: Option<&RawValue>,
    msg_ref: Option<&RawValue>,
    topic: Option<&RawValue>,
    event: Option<&RawValue>,
    payload: Option<&RawValue>,
) -> Result<Message, RealtimeError> {
    let null = || RealtimeError::invalid("a ref is not a string");
    let reference = |raw: Option<&RawValue>| match raw {
        Some(raw) => reference(raw).map_err(|()| null()),
        None => Ok(None),
    };
    let text = |raw: Option<&RawValue>, name: &str| {
        raw.and_then(as_string)
            .ok_or_else(|| RealtimeError::invalid(format!("{name} is not a string")))
    };
    Ok(Message {
        join_ref: reference(join_ref)?,
        msg_ref: reference(msg_ref)?,
        topic: text(topic, "topic")?,
        event: text(event, "event")?,
        payload: payload.map_or("null", RawValue::get).to_owned(),
    })
}

/// `{topic, event, payload, ref, join_ref}` (1.0.0).
fn decode_object(text: &str) -> Result<Message, RealtimeError> {
    let object =
        Entries::parse(text).ok_or_else(|| RealtimeError::invalid("expected a JSON object"))?;
    let field = |key: &str| object.get(key);
    message(
        field("join_ref"),
        field("ref"),
        field("topic"),
        field("event"),
        field("payload"),
    )
}

/// `[join_ref, ref, topic, event, payload]` (2.0.0 text).
fn decode_array(text: &str) -> Result<Message, RealtimeError> {
    let items = array(text).ok_or_else(|| RealtimeError::invalid("expected a JSON array"))?;
    let [join_ref, msg_ref, topic, event, payload] = items[..] else {
        return Err(RealtimeError::invalid("expected 5 elements"));
    };
    message(
        Some(join_ref),
        Some(msg_ref),
        Some(topic),
        Some(event),
        Some(payload),
    )
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
    let mut field = |len: u8, name: &str| -> Result<&str, RealtimeError> {
        let len = usize::from(len);
        let part = rest.get(..len).ok_or_else(truncated)?;
        rest = &rest[len..];
        std::str::from_utf8(part)
            .map_err(|_| RealtimeError::invalid(format!("{name} is not UTF-8")))
    };
    let topic = field(topic_len, "topic")?;
    let event = field(event_len, "event")?;
    let meta = field(meta_len, "meta")?;
    let payload =
        std::str::from_utf8(rest).map_err(|_| RealtimeError::invalid("payload is not UTF-8"))?;
    let payload: &RawValue = serde_json::from_str(payload).map_err(not_json)?;
    let meta = if meta.is_empty() {
        String::new()
    } else {
        let meta: &RawValue = serde_json::from_str(meta).map_err(not_json)?;
        format!(r#","meta":{}"#, meta.get())
    };
    let payload = format!(
        r#"{{"type":"broadcast","event":{},"payload":{}{meta}}}"#,
        quote(event),
        payload.get()
    );
    Ok(Message::new(topic, BROADCAST, payload))
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use serde_json::{json, Value};

    fn value(text: &str) -> Value {
        serde_json::from_str(text).unwrap()
    }

    fn push(event: &str, payload: &str) -> Message {
        Message::new("realtime:room", event, payload).with_refs(Some("1".into()), Some("2".into()))
    }

    #[test]
    fn v1_sends_json_objects() {
        let Frame::Text(text) = Vsn::V1.encode(&push("phx_join", r#"{"a":1}"#)) else {
            panic!("text expected")
        };
        assert_eq!(
            value(&text),
            json!({"topic": "realtime:room", "event": "phx_join", "payload": {"a": 1},
                   "ref": "2", "join_ref": "1"})
        );
    }

    #[test]
    fn v2_sends_text_messages_as_arrays() {
        assert_eq!(
            Vsn::V2.encode(&push("phx_join", "{}")),
            Frame::Text(r#"["1","2","realtime:room","phx_join",{}]"#.into())
        );
        let heartbeat =
            Message::new("phoenix", "heartbeat", "{}").with_refs(None, Some("7".into()));
        assert_eq!(
            Vsn::V2.encode(&heartbeat),
            Frame::Text(r#"[null,"7","phoenix","heartbeat",{}]"#.into())
        );
    }

    fn broadcast<'a>(event: &'a str, payload: &'a str) -> BroadcastPush<'a> {
        BroadcastPush {
            topic: "realtime:room",
            join_ref: Some("1"),
            msg_ref: "2",
            event,
            payload,
        }
    }

    #[test]
    fn v2_sends_client_broadcasts_as_binary_kind_3() {
        let Frame::Binary(bytes) = Vsn::V2
            .encode_broadcast(&broadcast("hi", r#"{"n":1}"#))
            .unwrap()
        else {
            panic!("binary expected")
        };
        let mut expected = vec![3, 1, 1, 13, 2, 0, 1];
        expected.extend_from_slice(b"12realtime:roomhi{\"n\":1}");
        assert_eq!(bytes, expected);
    }

    #[test]
    fn v1_sends_broadcasts_as_text() {
        let Frame::Text(text) = Vsn::V1.encode_broadcast(&broadcast("hi", "[1]")).unwrap() else {
            panic!("text expected")
        };
        assert_eq!(
            value(&text)["payload"],
            json!({"type": "broadcast", "event": "hi", "payload": [1]})
        );
    }

    #[test]
    fn binary_fields_longer_than_255_bytes_are_refused() {
        let event = "x".repeat(256);
        assert_eq!(
            Vsn::V2.encode_broadcast(&broadcast(&event, "{}")),
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
            value(&message.payload),
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
        let not_json = vec![4, 1, 1, 0, 1, b't', b'e', b'{'];
        assert!(Vsn::V2.decode(&Frame::Binary(not_json)).is_err());
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
        assert_eq!(message.payload, r#"{"status":"ok"}"#);
    }

    #[test]
    fn malformed_text_frames_are_refused() {
        for text in [
            "nope",
            "{}",
            r#"[null,null,"t","e"]"#,
            r#"[null,null,1,"e",{}]"#,
            r#"[{},null,"t","e",{}]"#,
            r#"[null,null,"t","e",{},6]"#,
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
            let vsn = if v1 { Vsn::V1 } else { Vsn::V2 };
            let message = Message { join_ref, msg_ref, topic, event, payload: payload.to_string() };
            let frame = vsn.encode(&message);
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
            let text = payload.to_string();
            let sent = BroadcastPush { topic: &topic, join_ref: Some("1"), msg_ref: "22", event: &event, payload: &text };
            let Frame::Binary(push) = Vsn::V2.encode_broadcast(&sent).unwrap() else {
                panic!("binary expected")
            };
            let (lengths, fields) = push[1..].split_at(6);
            let body = &fields[usize::from(lengths[0]) + usize::from(lengths[1])..];
            let mut relayed = vec![4, lengths[2], lengths[3], 0, lengths[5]];
            relayed.extend_from_slice(body);
            let received = Vsn::V2.decode(&Frame::Binary(relayed)).unwrap();
            prop_assert_eq!(received.topic, topic);
            prop_assert_eq!(
                value(&received.payload),
                json!({"type": "broadcast", "event": event, "payload": payload})
            );
        }
    }
}
