//! Phoenix channel frames as Realtime's two serializers write them.
//!
//! - `1.0.0`: a JSON object `{topic, event, payload, ref, join_ref}` in a text frame.
//! - `2.0.0`: a JSON array `[join_ref, ref, topic, event, payload]` in a text frame, and
//!   broadcasts in binary frames: a client's push is kind 3 (`03`, the byte lengths of join_ref,
//!   ref, topic, event and metadata, the payload's encoding (0 binary, 1 JSON), then those fields
//!   and the payload); the server's broadcast is kind 4 (`04`, the lengths of topic, event and
//!   metadata, the encoding, then topic, event, metadata and payload).
//!
//! Pure functions over bytes and values: the socket layer does the I/O.

use serde_json::{json, Value};

/// The serializer a socket asked for with `?vsn=`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Vsn {
    V1,
    V2,
}

impl Vsn {
    /// `None` for a version the server does not speak. Without `vsn` a Phoenix server uses 1.0.0.
    pub fn parse(vsn: Option<&str>) -> Option<Vsn> {
        match vsn {
            None | Some("1.0.0") => Some(Vsn::V1),
            Some("2.0.0") => Some(Vsn::V2),
            Some(_) => None,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Vsn::V1 => "1.0.0",
            Vsn::V2 => "2.0.0",
        }
    }
}

/// A message on the wire, whichever frame it came in.
#[derive(Debug, Clone, PartialEq)]
pub struct Message {
    pub join_ref: Option<String>,
    pub reference: Option<String>,
    pub topic: String,
    pub event: String,
    pub payload: Payload,
}

/// A message's payload: JSON, or the raw bytes of a binary broadcast.
#[derive(Debug, Clone, PartialEq)]
pub enum Payload {
    Json(Value),
    /// A kind-3 broadcast whose payload was sent as bytes: its user event and the bytes.
    BinaryBroadcast {
        event: String,
        bytes: Vec<u8>,
    },
}

/// What a server frame is: text, or bytes (2.0.0 broadcasts).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outgoing {
    Text(String),
    Binary(Vec<u8>),
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FrameError(pub String);

impl std::fmt::Display for FrameError {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter.write_str(&self.0)
    }
}

const USER_BROADCAST_PUSH: u8 = 3;
const USER_BROADCAST: u8 = 4;
const BINARY_ENCODING: u8 = 0;
const JSON_ENCODING: u8 = 1;

/// Reads a text frame in the socket's serializer.
pub fn decode_text(vsn: Vsn, text: &str) -> Result<Message, FrameError> {
    let value: Value =
        serde_json::from_str(text).map_err(|error| FrameError(format!("not JSON: {error}")))?;
    match vsn {
        Vsn::V1 => {
            let Value::Object(mut object) = value else {
                return Err(FrameError("a 1.0.0 message is a JSON object".into()));
            };
            Ok(Message {
                join_ref: optional_ref(object.remove("join_ref"))?,
                reference: optional_ref(object.remove("ref"))?,
                topic: required_text(object.remove("topic"), "topic")?,
                event: required_text(object.remove("event"), "event")?,
                payload: Payload::Json(object.remove("payload").unwrap_or_else(|| json!({}))),
            })
        }
        Vsn::V2 => {
            let Value::Array(items) = value else {
                return Err(FrameError("a 2.0.0 message is a JSON array".into()));
            };
            let Ok([join_ref, reference, topic, event, payload]) = <[Value; 5]>::try_from(items)
            else {
                return Err(FrameError(
                    "a 2.0.0 message is [join_ref, ref, topic, event, payload]".into(),
                ));
            };
            Ok(Message {
                join_ref: optional_ref(Some(join_ref))?,
                reference: optional_ref(Some(reference))?,
                topic: required_text(Some(topic), "topic")?,
                event: required_text(Some(event), "event")?,
                payload: Payload::Json(payload),
            })
        }
    }
}

/// Reads a binary frame: only a client's broadcast push (kind 3) is one.
pub fn decode_binary(bytes: &[u8]) -> Result<Message, FrameError> {
    let truncated = || FrameError("binary frame shorter than its header says".into());
    let [kind, join_ref_len, ref_len, topic_len, event_len, meta_len, encoding, rest @ ..] = bytes
    else {
        return Err(truncated());
    };
    if *kind != USER_BROADCAST_PUSH {
        return Err(FrameError(format!(
            "binary frames of kind {kind} are not accepted"
        )));
    }
    let mut rest = rest;
    let mut field = |length: u8| -> Result<String, FrameError> {
        let length = usize::from(length);
        if rest.len() < length {
            return Err(truncated());
        }
        let (head, tail) = rest.split_at(length);
        rest = tail;
        String::from_utf8(head.to_vec())
            .map_err(|_| FrameError("a header field is not UTF-8".into()))
    };
    let join_ref = field(*join_ref_len)?;
    let reference = field(*ref_len)?;
    let topic = field(*topic_len)?;
    let event = field(*event_len)?;
    let meta = field(*meta_len)?;
    let mut payload = serde_json::Map::new();
    payload.insert("type".into(), "broadcast".into());
    payload.insert("event".into(), event.clone().into());
    if !meta.is_empty() {
        // Allowed metadata keys travel as a JSON object beside the payload.
        let Ok(Value::Object(meta)) = serde_json::from_str::<Value>(&meta) else {
            return Err(FrameError(
                "binary broadcast metadata is not a JSON object".into(),
            ));
        };
        for (key, value) in meta {
            payload.entry(key).or_insert(value);
        }
    }
    let payload = match *encoding {
        JSON_ENCODING => {
            let user: Value = serde_json::from_slice(rest)
                .map_err(|_| FrameError("a JSON-encoded broadcast payload is not JSON".into()))?;
            payload.insert("payload".into(), user);
            Payload::Json(Value::Object(payload))
        }
        BINARY_ENCODING => Payload::BinaryBroadcast {
            event,
            bytes: rest.to_vec(),
        },
        other => return Err(FrameError(format!("unknown payload encoding {other}"))),
    };
    Ok(Message {
        join_ref: (!join_ref.is_empty()).then_some(join_ref),
        reference: (!reference.is_empty()).then_some(reference),
        topic,
        event: "broadcast".into(),
        payload,
    })
}

/// Writes a JSON message in the socket's serializer.
pub fn encode(
    vsn: Vsn,
    join_ref: Option<&str>,
    reference: Option<&str>,
    topic: &str,
    event: &str,
    payload: &Value,
) -> String {
    match vsn {
        Vsn::V1 => json!({
            "topic": topic,
            "event": event,
            "payload": payload,
            "ref": reference,
            "join_ref": join_ref,
        })
        .to_string(),
        Vsn::V2 => json!([join_ref, reference, topic, event, payload]).to_string(),
    }
}

/// A user broadcast as the server sends it: binary kind 4 to 2.0.0 sockets, a `broadcast`
/// message `{type, event, payload}` to 1.0.0 ones. A byte payload cannot travel in JSON, so a
/// 1.0.0 socket gets none (`None`).
pub fn encode_broadcast(vsn: Vsn, topic: &str, broadcast: &Broadcast) -> Option<Outgoing> {
    match (vsn, &broadcast.payload) {
        (Vsn::V2, body) => {
            let (encoding, bytes) = match body {
                BroadcastBody::Json(value) => (JSON_ENCODING, value.to_string().into_bytes()),
                BroadcastBody::Bytes(bytes) => (BINARY_ENCODING, bytes.clone()),
            };
            let topic_len = u8::try_from(topic.len()).ok()?;
            let event_len = u8::try_from(broadcast.event.len()).ok()?;
            let mut frame =
                Vec::with_capacity(5 + topic.len() + broadcast.event.len() + bytes.len());
            frame.extend_from_slice(&[USER_BROADCAST, topic_len, event_len, 0, encoding]);
            frame.extend_from_slice(topic.as_bytes());
            frame.extend_from_slice(broadcast.event.as_bytes());
            frame.extend_from_slice(&bytes);
            Some(Outgoing::Binary(frame))
        }
        (Vsn::V1, BroadcastBody::Json(value)) => Some(Outgoing::Text(encode(
            Vsn::V1,
            None,
            None,
            topic,
            "broadcast",
            &json!({"type": "broadcast", "event": broadcast.event, "payload": value}),
        ))),
        (Vsn::V1, BroadcastBody::Bytes(_)) => None,
    }
}

/// A user broadcast: its event and payload.
#[derive(Debug, Clone, PartialEq)]
pub struct Broadcast {
    pub event: String,
    pub payload: BroadcastBody,
}

#[derive(Debug, Clone, PartialEq)]
pub enum BroadcastBody {
    Json(Value),
    Bytes(Vec<u8>),
}

impl Broadcast {
    /// What the payload's size limit counts: its JSON text, or its bytes.
    pub fn payload_bytes(&self) -> usize {
        match &self.payload {
            BroadcastBody::Json(value) => value.to_string().len(),
            BroadcastBody::Bytes(bytes) => bytes.len(),
        }
    }

    /// The broadcast a `broadcast` push carries: `{type: "broadcast", event, payload}`.
    pub fn from_push(payload: &Payload) -> Option<Broadcast> {
        match payload {
            Payload::BinaryBroadcast { event, bytes } => Some(Broadcast {
                event: event.clone(),
                payload: BroadcastBody::Bytes(bytes.clone()),
            }),
            Payload::Json(value) => Some(Broadcast {
                event: value.get("event")?.as_str()?.to_owned(),
                payload: BroadcastBody::Json(value.get("payload").cloned().unwrap_or(Value::Null)),
            }),
        }
    }
}

/// Phoenix refs are strings; a client may send numbers, which are read as their text.
fn optional_ref(value: Option<Value>) -> Result<Option<String>, FrameError> {
    match value {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(text)) => Ok(Some(text)),
        Some(Value::Number(number)) => Ok(Some(number.to_string())),
        Some(_) => Err(FrameError("a ref is a string or null".into())),
    }
}

fn required_text(value: Option<Value>, name: &str) -> Result<String, FrameError> {
    match value {
        Some(Value::String(text)) => Ok(text),
        _ => Err(FrameError(format!("`{name}` must be a string"))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_default_to_one_and_refuse_others() {
        assert_eq!(Vsn::parse(None), Some(Vsn::V1));
        assert_eq!(Vsn::parse(Some("1.0.0")), Some(Vsn::V1));
        assert_eq!(Vsn::parse(Some("2.0.0")), Some(Vsn::V2));
        assert_eq!(Vsn::parse(Some("3.0.0")), None);
    }

    #[test]
    fn both_text_serializers_round_trip() {
        for vsn in [Vsn::V1, Vsn::V2] {
            let text = encode(
                vsn,
                Some("1"),
                Some("2"),
                "realtime:x",
                "phx_join",
                &json!({"a": 1}),
            );
            let message = decode_text(vsn, &text).unwrap();
            assert_eq!(message.join_ref.as_deref(), Some("1"));
            assert_eq!(message.reference.as_deref(), Some("2"));
            assert_eq!(message.topic, "realtime:x");
            assert_eq!(message.event, "phx_join");
            assert_eq!(message.payload, Payload::Json(json!({"a": 1})));
        }
        assert_eq!(
            encode(Vsn::V2, None, Some("7"), "phoenix", "phx_reply", &json!({})),
            r#"[null,"7","phoenix","phx_reply",{}]"#
        );
    }

    #[test]
    fn a_serializer_refuses_the_other_shape() {
        assert!(decode_text(Vsn::V1, r#"[null,"1","t","e",{}]"#).is_err());
        assert!(decode_text(
            Vsn::V2,
            r#"{"topic":"t","event":"e","payload":{},"ref":"1"}"#
        )
        .is_err());
        assert!(decode_text(Vsn::V2, r#"[null,"1","t","e"]"#).is_err());
        assert!(decode_text(Vsn::V2, "not json").is_err());
    }

    fn push(encoding: u8, meta: &str, payload: &[u8]) -> Vec<u8> {
        let (join_ref, reference, topic, event) = ("1", "12", "realtime:room", "shout");
        let mut bytes = vec![
            3,
            join_ref.len() as u8,
            reference.len() as u8,
            topic.len() as u8,
            event.len() as u8,
            meta.len() as u8,
            encoding,
        ];
        for part in [join_ref, reference, topic, event, meta] {
            bytes.extend_from_slice(part.as_bytes());
        }
        bytes.extend_from_slice(payload);
        bytes
    }

    #[test]
    fn binary_pushes_decode_as_broadcasts() {
        let message = decode_binary(&push(1, "", br#"{"n":1}"#)).unwrap();
        assert_eq!(message.join_ref.as_deref(), Some("1"));
        assert_eq!(message.reference.as_deref(), Some("12"));
        assert_eq!(message.topic, "realtime:room");
        assert_eq!(message.event, "broadcast");
        assert_eq!(
            message.payload,
            Payload::Json(json!({"type": "broadcast", "event": "shout", "payload": {"n": 1}}))
        );
        let raw = decode_binary(&push(0, "", &[0, 255])).unwrap();
        assert_eq!(
            raw.payload,
            Payload::BinaryBroadcast {
                event: "shout".into(),
                bytes: vec![0, 255]
            }
        );
    }

    #[test]
    fn malformed_binary_frames_are_refused() {
        assert!(decode_binary(&[3, 1]).is_err());
        let mut wrong_kind = push(1, "", b"{}");
        wrong_kind[0] = 4;
        assert!(decode_binary(&wrong_kind).is_err());
        let mut short = push(1, "", b"{}");
        short.truncate(10);
        assert!(decode_binary(&short).is_err());
        assert!(decode_binary(&push(1, "", b"{")).is_err());
        assert!(decode_binary(&push(9, "", b"{}")).is_err());
    }

    #[test]
    fn server_broadcasts_are_kind_four_for_version_two() {
        let broadcast = Broadcast {
            event: "shout".into(),
            payload: BroadcastBody::Json(json!({"n": 1})),
        };
        let Some(Outgoing::Binary(frame)) = encode_broadcast(Vsn::V2, "realtime:room", &broadcast)
        else {
            panic!("expected a binary frame");
        };
        let mut expected = vec![4, 13, 5, 0, 1];
        expected.extend_from_slice(b"realtime:roomshout{\"n\":1}");
        assert_eq!(frame, expected);
        let Some(Outgoing::Text(text)) = encode_broadcast(Vsn::V1, "realtime:room", &broadcast)
        else {
            panic!("expected a text frame");
        };
        let message = decode_text(Vsn::V1, &text).unwrap();
        assert_eq!(
            message.payload,
            Payload::Json(json!({"type": "broadcast", "event": "shout", "payload": {"n": 1}}))
        );
        let bytes = Broadcast {
            event: "e".into(),
            payload: BroadcastBody::Bytes(vec![1]),
        };
        assert_eq!(encode_broadcast(Vsn::V1, "realtime:room", &bytes), None);
    }
}
