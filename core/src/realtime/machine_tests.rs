//! The state machine fed calls, socket events, frames and `now`, asserting what it asks for.

use serde_json::{json, Value};

use super::*;
use crate::realtime::join::{ChangeFilter, MISMATCH_MESSAGE};
use crate::{HttpRequest, Method, RequestTimeout};

const URL: &str = "ws://h:1/realtime/v1/websocket?apikey=key&vsn=2.0.0";
const TOPIC: &str = "realtime:room";

fn at(seconds: f64) -> UnixTime {
    UnixTime::from_millis(seconds * 1000.0)
}

fn realtime(vsn: Vsn) -> Realtime {
    let config = ClientConfig::new("http://h:1", "key").unwrap();
    Realtime::new(&config, vsn)
}

/// The V2 text frames among `actions`, as JSON arrays.
fn sent(actions: &[Action]) -> Vec<Value> {
    actions
        .iter()
        .filter_map(|action| match action {
            Action::Send(Frame::Text(text)) => Some(serde_json::from_str(text).unwrap()),
            _ => None,
        })
        .collect()
}

fn events(actions: &[Action]) -> Vec<String> {
    sent(actions)
        .iter()
        .map(|message| message[3].as_str().unwrap().to_owned())
        .collect()
}

fn statuses(actions: &[Action]) -> Vec<(Status, Option<String>)> {
    actions
        .iter()
        .filter_map(|action| match action {
            Action::Status {
                status, message, ..
            } => Some((*status, message.clone())),
            _ => None,
        })
        .collect()
}

fn settled(actions: &[Action]) -> Vec<(PushId, PushOutcome)> {
    actions
        .iter()
        .filter_map(|action| match action {
            Action::Settle { push, outcome } => Some((*push, *outcome)),
            _ => None,
        })
        .collect()
}

fn timer(actions: &[Action]) -> Option<&Action> {
    actions
        .iter()
        .find(|action| matches!(action, Action::ArmTimer(_) | Action::ClearTimer))
}

fn text(message: Value) -> Frame {
    Frame::Text(message.to_string())
}

/// A `phx_reply` to the push sent as `push` (a V2 array).
fn reply_to(push: &Value, status: &str, response: Value) -> Frame {
    text(json!([push[0], push[1], push[2], "phx_reply",
                {"status": status, "response": response}]))
}

fn changes(event: &str) -> Listener {
    Listener::PostgresChanges(ChangeFilter {
        event: event.into(),
        schema: "public".into(),
        table: Some("geocache_logs".into()),
        filter: None,
    })
}

/// A channel subscribed at 0 s on a socket opened at 0 s; its join not yet answered.
fn joining(options: ChannelOptions, listeners: &[Listener]) -> (Realtime, ChannelId, Value) {
    let mut realtime = realtime(Vsn::V2);
    let room = realtime.channel("room", options);
    for listener in listeners {
        realtime.listen(room, listener.clone()).unwrap();
    }
    realtime.subscribe(room, at(0.0)).unwrap();
    let actions = realtime.opened(at(0.0));
    let join = sent(&actions).remove(0);
    (realtime, room, join)
}

/// A channel joined at 0 s.
fn joined(options: ChannelOptions, listeners: &[Listener]) -> (Realtime, ChannelId, Value) {
    let (mut realtime, room, join) = joining(options, listeners);
    let actions = realtime.received(&reply_to(&join, "ok", json!({})), at(0.0));
    assert_eq!(statuses(&actions), [(Status::Subscribed, None)]);
    (realtime, room, join)
}

#[test]
fn subscribing_connects_then_joins_once_open() {
    let mut realtime = realtime(Vsn::V2);
    let room = realtime.channel("room", ChannelOptions::default());
    assert_eq!(
        realtime.subscribe(room, at(0.0)).unwrap(),
        [Action::Connect(URL.into())]
    );
    let actions = realtime.opened(at(1.0));
    let join = &sent(&actions)[0];
    assert_eq!(join[0], join[1], "a join's ref is its join_ref");
    assert_eq!(join[2], TOPIC);
    assert_eq!(join[3], "phx_join");
    assert_eq!(join[4]["access_token"], "key");
    assert_eq!(join[4]["config"]["private"], false);
    // The join's timeout (10 s) comes before the first heartbeat (25 s).
    assert_eq!(timer(&actions), Some(&Action::ArmTimer(at(11.0))));
}

#[test]
fn a_second_channel_on_an_open_socket_joins_at_once() {
    let (mut realtime, _, _) = joined(ChannelOptions::default(), &[]);
    let other = realtime.channel("other", ChannelOptions::default());
    let actions = realtime.subscribe(other, at(3.0)).unwrap();
    assert_eq!(events(&actions), ["phx_join"]);
    assert_eq!(sent(&actions)[0][2], "realtime:other");
}

#[test]
fn the_same_name_is_the_same_channel_and_subscribes_once() {
    let mut realtime = realtime(Vsn::V2);
    let room = realtime.channel("room", ChannelOptions::default());
    assert_eq!(realtime.channel("room", ChannelOptions::default()), room);
    realtime.subscribe(room, at(0.0)).unwrap();
    assert_eq!(
        realtime.subscribe(room, at(0.0)),
        Err(RealtimeError::AlreadySubscribed)
    );
    assert_eq!(realtime.topic(room), Some(TOPIC));
}

#[test]
fn a_join_reply_subscribes_and_the_heartbeat_is_next() {
    let (mut realtime, room, join) = joining(ChannelOptions::default(), &[]);
    let actions = realtime.received(&reply_to(&join, "ok", json!({})), at(2.0));
    assert_eq!(statuses(&actions), [(Status::Subscribed, None)]);
    assert_eq!(timer(&actions), Some(&Action::ArmTimer(at(25.0))));
    assert_eq!(realtime.state(room), Some(ChannelState::Joined));
}

#[test]
fn heartbeats_go_every_25_seconds_while_answered() {
    let (mut realtime, _, _) = joined(ChannelOptions::default(), &[]);
    let actions = realtime.tick(at(25.0));
    let heartbeat = sent(&actions).remove(0);
    assert_eq!(
        heartbeat,
        json!([null, heartbeat[1], "phoenix", "heartbeat", {}])
    );
    assert_eq!(timer(&actions), Some(&Action::ArmTimer(at(50.0))));
    realtime.received(&reply_to(&heartbeat, "ok", json!({})), at(26.0));
    let actions = realtime.tick(at(50.0));
    assert_eq!(events(&actions), ["heartbeat"]);
}

#[test]
fn an_unanswered_heartbeat_closes_the_socket_and_reconnects() {
    let (mut realtime, room, _) = joined(ChannelOptions::default(), &[]);
    realtime.tick(at(25.0));
    let actions = realtime.tick(at(50.0));
    assert_eq!(
        actions[0],
        Action::Close {
            code: 1000,
            reason: "heartbeat timeout"
        }
    );
    assert_eq!(statuses(&actions), [(Status::ChannelError, None)]);
    assert_eq!(timer(&actions), Some(&Action::ArmTimer(at(51.0))));
    assert_eq!(realtime.tick(at(51.0))[0], Action::Connect(URL.into()));
    // On open, the errored channel rejoins at once.
    let actions = realtime.opened(at(51.5));
    assert_eq!(events(&actions), ["phx_join"]);
    assert_eq!(realtime.state(room), Some(ChannelState::Joining));
}

#[test]
fn reconnects_back_off_1_2_5_10_10_seconds_and_reset_once_open() {
    let (mut realtime, _, _) = joined(ChannelOptions::default(), &[]);
    let mut now = 100.0;
    let mut delays = Vec::new();
    let first = realtime.closed(at(now));
    assert_eq!(statuses(&first), [(Status::ChannelError, None)]);
    for attempt in 0..5 {
        let deadline = realtime.next_deadline().unwrap();
        delays.push(deadline.millis_since(at(now)) / 1000.0);
        now = deadline.seconds();
        assert_eq!(realtime.tick(at(now))[0], Action::Connect(URL.into()));
        if attempt < 4 {
            realtime.closed(at(now));
        }
    }
    assert_eq!(delays, [1.0, 2.0, 5.0, 10.0, 10.0]);
    realtime.opened(at(now));
    realtime.closed(at(now));
    assert_eq!(realtime.next_deadline(), Some(at(now + 1.0)));
}

#[test]
fn a_socket_without_channels_is_not_reconnected() {
    let (mut realtime, room, _) = joined(ChannelOptions::default(), &[]);
    let (push, _) = realtime.unsubscribe(room, at(1.0));
    // The socket drops while the leave waits: no reconnect, the leave times out.
    realtime.closed(at(2.0));
    assert_eq!(realtime.next_deadline(), Some(at(11.0)));
    let actions = realtime.tick(at(11.0));
    assert_eq!(settled(&actions), [(push, PushOutcome::TimedOut)]);
    assert_eq!(timer(&actions), Some(&Action::ClearTimer));
    assert_eq!(realtime.next_deadline(), None);
}

#[test]
fn a_join_unanswered_for_10_seconds_times_out_leaves_and_rejoins_with_back_off() {
    let (mut realtime, room, join) = joining(ChannelOptions::default(), &[]);
    let actions = realtime.tick(at(10.0));
    let leave = sent(&actions).remove(0);
    assert_eq!(leave[3], "phx_leave");
    assert_eq!(leave[0], join[0], "the leave names the join it ends");
    assert_eq!(statuses(&actions), [(Status::TimedOut, None)]);
    assert_eq!(timer(&actions), Some(&Action::ArmTimer(at(11.0))));
    let mut now = 11.0;
    let mut delays = vec![1.0];
    for _ in 0..4 {
        let actions = realtime.tick(at(now));
        let joins = events(&actions).iter().filter(|e| *e == "phx_join").count();
        assert_eq!(joins, 1);
        now += 10.0;
        let actions = realtime.tick(at(now));
        assert_eq!(statuses(&actions), [(Status::TimedOut, None)]);
        let next = realtime.next_deadline().unwrap().seconds();
        // The heartbeat may come first; the rejoin is what is measured.
        let rejoin = realtime.find(room).unwrap().rejoin_at.unwrap().seconds();
        assert!(next <= rejoin);
        delays.push(rejoin - now);
        now = rejoin;
        // Keep the socket alive.
        realtime.heartbeat_ref = None;
    }
    assert_eq!(delays, [1.0, 2.0, 5.0, 10.0, 10.0]);
}

#[test]
fn a_reply_to_an_earlier_join_is_dropped() {
    let (mut realtime, room, first) = joining(ChannelOptions::default(), &[]);
    realtime.tick(at(10.0));
    let actions = realtime.tick(at(11.0));
    let second = sent(&actions).remove(0);
    assert_ne!(first[0], second[0]);
    let stale = realtime.received(&reply_to(&first, "ok", json!({})), at(11.5));
    assert!(statuses(&stale).is_empty());
    assert_eq!(realtime.state(room), Some(ChannelState::Joining));
    let fresh = realtime.received(&reply_to(&second, "ok", json!({})), at(11.5));
    assert_eq!(statuses(&fresh), [(Status::Subscribed, None)]);
}

#[test]
fn phx_close_counts_only_for_the_current_join() {
    let (mut realtime, room, join) = joined(ChannelOptions::default(), &[]);
    let foreign = text(json!([null, "999", TOPIC, "phx_close", {}]));
    assert!(realtime.received(&foreign, at(1.0)).is_empty());
    let stale = text(json!(["999", null, TOPIC, "phx_close", {}]));
    assert!(realtime.received(&stale, at(1.0)).is_empty());
    let close = text(json!([join[0], null, TOPIC, "phx_close", {}]));
    let actions = realtime.received(&close, at(1.0));
    assert_eq!(statuses(&actions), [(Status::Closed, None)]);
    assert!(actions.contains(&Action::Forget(room)));
    assert_eq!(realtime.channel_ids(), []);
}

#[test]
fn phx_error_errors_the_channel_and_rejoins_after_a_second() {
    let (mut realtime, room, join) = joined(ChannelOptions::default(), &[]);
    let error = text(json!([join[0], join[0], TOPIC, "phx_error", {}]));
    let actions = realtime.received(&error, at(3.0));
    assert_eq!(statuses(&actions), [(Status::ChannelError, None)]);
    assert_eq!(realtime.state(room), Some(ChannelState::Errored));
    assert_eq!(timer(&actions), Some(&Action::ArmTimer(at(4.0))));
    assert_eq!(events(&realtime.tick(at(4.0))), ["phx_join"]);
}

#[test]
fn a_refused_join_reports_the_reason_and_rejoins() {
    let (mut realtime, _, join) = joining(ChannelOptions::default(), &[]);
    let reason = json!({"reason": "Unauthorized: You do not have permissions"});
    let actions = realtime.received(&reply_to(&join, "error", reason), at(1.0));
    assert_eq!(
        statuses(&actions),
        [(
            Status::ChannelError,
            Some("Unauthorized: You do not have permissions".into())
        )]
    );
    assert_eq!(timer(&actions), Some(&Action::ArmTimer(at(2.0))));
}

#[test]
fn changes_take_the_ids_of_the_join_reply() {
    let (mut realtime, room, join) = joining(
        ChannelOptions::default(),
        &[changes("INSERT"), Listener::System],
    );
    assert_eq!(
        join[4]["config"]["postgres_changes"],
        json!([{"event": "INSERT", "schema": "public", "table": "geocache_logs"}])
    );
    let response = json!({"postgres_changes": [
        {"id": 77, "event": "INSERT", "schema": "public", "table": "geocache_logs"}]});
    realtime.received(&reply_to(&join, "ok", response), at(0.5));
    let change = text(json!([null, null, TOPIC, "postgres_changes", {
        "ids": [77],
        "data": {"schema": "public", "table": "geocache_logs", "type": "INSERT",
                 "commit_timestamp": "2026-05-01T10:00:00Z", "errors": null,
                 "columns": [{"name": "id", "type": "int8"}],
                 "record": {"id": "1", "name": "Ada"}}
    }]));
    let actions = realtime.received(&change, at(1.0));
    let [Action::Deliver { channel, delivery }] = actions.as_slice() else {
        panic!("one delivery expected: {actions:?}")
    };
    assert_eq!(*channel, room);
    assert_eq!(delivery.listeners, [0]);
    let payload: Value = serde_json::from_str(&delivery.payload).unwrap();
    assert_eq!(payload["new"], json!({"id": 1, "name": "Ada"}));
    assert_eq!(payload["eventType"], "INSERT");

    let system = text(json!([null, null, TOPIC, "system",
                             {"message": "Subscribed to PostgreSQL", "status": "ok"}]));
    let actions = realtime.received(&system, at(1.0));
    assert!(
        matches!(&actions[..], [Action::Deliver { delivery, .. }] if delivery.listeners == [1])
    );
    assert_eq!(realtime.state(room), Some(ChannelState::Joined));
}

#[test]
fn mismatched_change_ids_leave_with_channel_error_then_close() {
    let (mut realtime, room, join) = joining(ChannelOptions::default(), &[changes("INSERT")]);
    let response = json!({"postgres_changes": [
        {"id": 1, "event": "DELETE", "schema": "public", "table": "geocache_logs"}]});
    let actions = realtime.received(&reply_to(&join, "ok", response), at(1.0));
    assert_eq!(
        statuses(&actions),
        [(Status::ChannelError, Some(MISMATCH_MESSAGE.into()))]
    );
    let leave = sent(&actions).remove(0);
    assert_eq!(leave[3], "phx_leave");
    let actions = realtime.received(&reply_to(&leave, "ok", json!({})), at(1.5));
    assert_eq!(statuses(&actions), [(Status::Closed, None)]);
    assert_eq!(realtime.state(room), None);
}

#[test]
fn broadcasts_go_binary_and_settle_at_once_without_ack() {
    let (mut realtime, _, join) = joined(ChannelOptions::default(), &[]);
    let (push, actions) = realtime
        .broadcast(ChannelId(1), TOPIC, "hi", r#"{"n":1}"#, at(1.0))
        .unwrap();
    let Action::Send(Frame::Binary(bytes)) = &actions[0] else {
        panic!("a binary frame expected: {actions:?}")
    };
    assert_eq!(bytes[0], 3);
    assert!(bytes.ends_with(br#"realtime:roomhi{"n":1}"#));
    let join_ref = join[0].as_str().unwrap();
    assert_eq!(&bytes[7..7 + join_ref.len()], join_ref.as_bytes());
    assert_eq!(settled(&actions), [(push, PushOutcome::Ok)]);
}

#[test]
fn acknowledged_broadcasts_settle_on_the_reply_or_time_out() {
    let options = ChannelOptions {
        broadcast_ack: true,
        ..ChannelOptions::default()
    };
    let (mut realtime, room, join) = joined(options, &[]);
    let (first, actions) = realtime
        .broadcast(room, TOPIC, "a", r#"{}"#, at(1.0))
        .unwrap();
    assert!(settled(&actions).is_empty());
    assert_eq!(timer(&actions), Some(&Action::ArmTimer(at(11.0))));
    let Action::Send(Frame::Binary(bytes)) = &actions[0] else {
        panic!("binary expected")
    };
    let join_len = usize::from(bytes[1]);
    let ref_len = usize::from(bytes[2]);
    let msg_ref = std::str::from_utf8(&bytes[7 + join_len..7 + join_len + ref_len]).unwrap();
    let reply =
        text(json!([join[0], msg_ref, TOPIC, "phx_reply", {"status": "ok", "response": {}}]));
    assert_eq!(
        settled(&realtime.received(&reply, at(2.0))),
        [(first, PushOutcome::Ok)]
    );
    let (second, _) = realtime
        .broadcast(room, TOPIC, "b", r#"{}"#, at(3.0))
        .unwrap();
    assert_eq!(
        settled(&realtime.tick(at(13.0))),
        [(second, PushOutcome::TimedOut)]
    );
}

/// The request of the one HTTP broadcast among `actions`, its push and its deadline.
fn posted(actions: &[Action]) -> (PushId, &HttpRequest, RequestTimeout) {
    let posts: Vec<_> = actions
        .iter()
        .filter_map(|action| match action {
            Action::Post {
                push,
                request,
                timeout,
            } => Some((*push, request, *timeout)),
            _ => None,
        })
        .collect();
    assert_eq!(posts.len(), 1, "one HTTP broadcast expected: {actions:?}");
    posts[0]
}

#[test]
fn a_broadcast_on_a_channel_not_joined_goes_over_http() {
    let (mut realtime, room, _) = joining(ChannelOptions::default(), &[]);
    assert!(!realtime.can_push(room));
    let (push, actions) = realtime
        .broadcast(room, TOPIC, "wave", r#"{"n":1}"#, at(1.0))
        .unwrap();
    assert!(sent(&actions).is_empty(), "nothing on the socket");
    assert!(settled(&actions).is_empty(), "settled by the answer");
    let (posted_push, request, timeout) = posted(&actions);
    assert_eq!(posted_push, push);
    assert_eq!(request.method, Method::Post);
    assert_eq!(
        request.url,
        "http://h:1/realtime/v1/api/broadcast?apikey=key&vsn=2.0.0"
    );
    assert_eq!(request.header("apikey"), Some("key"));
    assert_eq!(request.header("authorization"), Some("Bearer key"));
    let body: Value = serde_json::from_str(request.body.as_deref().unwrap()).unwrap();
    assert_eq!(
        body,
        json!({"messages": [{"topic": "room", "event": "wave", "payload": {"n": 1}, "private": false}]})
    );
    assert_eq!(timeout.ms(), 10_000);
    // Nothing waits on the machine's timer for it.
    assert_eq!(timer(&actions), None);
}

#[test]
fn an_http_broadcast_carries_the_token_and_so_does_a_removed_or_never_subscribed_channel() {
    let mut realtime = realtime(Vsn::V2);
    let lobby = realtime.channel("lobby", ChannelOptions::default());
    realtime.set_access_token(Some("user.jwt".into()));
    let (_, actions) = realtime
        .broadcast(lobby, "realtime:lobby", "e", "null", at(0.0))
        .unwrap();
    let (_, request, _) = posted(&actions);
    assert_eq!(request.header("authorization"), Some("Bearer user.jwt"));
    assert!(request
        .body
        .as_deref()
        .unwrap()
        .contains(r#""topic":"lobby""#));

    let (mut realtime, room, _) = joined(ChannelOptions::default(), &[]);
    assert!(realtime.can_push(room));
    let (_, actions) = realtime.unsubscribe(room, at(1.0));
    let leave = sent(&actions).remove(0);
    let actions = realtime.received(&reply_to(&leave, "ok", json!({})), at(1.5));
    assert_eq!(statuses(&actions), [(Status::Closed, None)]);
    assert_eq!(realtime.topic(room), None);
    let (_, actions) = realtime.broadcast(room, TOPIC, "e", "{}", at(2.0)).unwrap();
    let (_, request, _) = posted(&actions);
    assert!(request
        .body
        .as_deref()
        .unwrap()
        .contains(r#""topic":"room""#));
}

#[test]
fn a_joined_channel_whose_socket_dropped_broadcasts_over_http() {
    let (mut realtime, room, _) = joined(ChannelOptions::default(), &[]);
    realtime.closed(at(1.0));
    assert!(!realtime.can_push(room));
    let (_, actions) = realtime.broadcast(room, TOPIC, "e", "{}", at(1.5)).unwrap();
    posted(&actions);
    assert!(sent(&actions).is_empty());
}

#[test]
fn broadcasts_are_delivered_to_star_and_their_event() {
    let (mut realtime, _, _) = joined(
        ChannelOptions::default(),
        &[
            Listener::Broadcast { event: "hi".into() },
            Listener::Broadcast { event: "*".into() },
            Listener::Broadcast { event: "no".into() },
        ],
    );
    let mut frame = vec![4, 13, 2, 0, 1];
    frame.extend_from_slice(br#"realtime:roomhi{"n":2}"#);
    let actions = realtime.received(&Frame::Binary(frame), at(1.0));
    let [Action::Deliver { delivery, .. }] = actions.as_slice() else {
        panic!("one delivery expected: {actions:?}")
    };
    assert_eq!(delivery.listeners, [0, 1]);
    assert_eq!(
        delivery.payload,
        r#"{"type":"broadcast","event":"hi","payload":{"n":2}}"#
    );
}

#[test]
fn unsubscribing_leaves_closes_on_the_reply_and_disconnects_50_seconds_later() {
    let (mut realtime, room, join) = joined(ChannelOptions::default(), &[]);
    let (push, actions) = realtime.unsubscribe(room, at(1.0));
    let leave = sent(&actions).remove(0);
    assert_eq!(leave, json!([join[0], leave[1], TOPIC, "phx_leave", {}]));
    assert_eq!(realtime.state(room), Some(ChannelState::Leaving));
    let actions = realtime.received(&reply_to(&leave, "ok", json!({})), at(2.0));
    assert_eq!(settled(&actions), [(push, PushOutcome::Ok)]);
    assert_eq!(statuses(&actions), [(Status::Closed, None)]);
    assert!(actions.contains(&Action::Forget(room)));
    assert_eq!(timer(&actions), Some(&Action::ArmTimer(at(25.0))));
    let heartbeat = sent(&realtime.tick(at(25.0))).remove(0);
    realtime.received(&reply_to(&heartbeat, "ok", json!({})), at(25.5));
    let actions = realtime.tick(at(52.0));
    assert!(actions.contains(&Action::Close {
        code: 1000,
        reason: ""
    }));
    assert!(!realtime.is_connected());
}

#[test]
fn an_unanswered_leave_times_out_and_still_closes() {
    let (mut realtime, room, _) = joined(ChannelOptions::default(), &[]);
    let (push, _) = realtime.unsubscribe(room, at(1.0));
    let actions = realtime.tick(at(11.0));
    assert_eq!(settled(&actions), [(push, PushOutcome::TimedOut)]);
    assert_eq!(statuses(&actions), [(Status::Closed, None)]);
}

#[test]
fn unsubscribing_a_channel_never_joined_closes_at_once() {
    let mut realtime = realtime(Vsn::V2);
    let room = realtime.channel("room", ChannelOptions::default());
    let (push, actions) = realtime.unsubscribe(room, at(0.0));
    assert_eq!(settled(&actions), [(push, PushOutcome::Ok)]);
    assert_eq!(statuses(&actions), [(Status::Closed, None)]);
    assert!(sent(&actions).is_empty());
    let (again, actions) = realtime.unsubscribe(room, at(0.0));
    assert_eq!(settled(&actions), [(again, PushOutcome::Ok)]);
}

#[test]
fn a_new_token_is_pushed_to_joined_channels_and_carried_by_later_joins() {
    let (mut realtime, room, join) = joined(ChannelOptions::default(), &[]);
    assert_eq!(join[4]["access_token"], "key");
    let actions = realtime.set_access_token(Some("jwt-1".into()));
    let push = sent(&actions).remove(0);
    assert_eq!(
        push,
        json!([join[0], push[1], TOPIC, "access_token", {"access_token": "jwt-1"}])
    );
    assert!(realtime.set_access_token(Some("jwt-1".into())).is_empty());
    // A signed-out client sends the key again.
    let actions = realtime.set_access_token(None);
    assert_eq!(sent(&actions)[0][4], json!({"access_token": "key"}));
    realtime.set_access_token(Some("jwt-2".into()));
    let error = text(json!([join[0], null, TOPIC, "phx_error", {}]));
    realtime.received(&error, at(5.0));
    let rejoin = sent(&realtime.tick(at(6.0))).remove(0);
    assert_eq!(rejoin[4]["access_token"], "jwt-2");
    assert_eq!(realtime.state(room), Some(ChannelState::Joining));
}

#[test]
fn a_token_set_before_joining_goes_in_the_join_only() {
    let mut realtime = realtime(Vsn::V2);
    let room = realtime.channel("room", ChannelOptions::default());
    assert!(realtime.set_access_token(Some("jwt".into())).is_empty());
    realtime.subscribe(room, at(0.0)).unwrap();
    let join = sent(&realtime.opened(at(0.0))).remove(0);
    assert_eq!(join[4]["access_token"], "jwt");
}

#[test]
fn dispose_closes_settles_forgets_and_clears_the_timer() {
    let options = ChannelOptions {
        broadcast_ack: true,
        ..ChannelOptions::default()
    };
    let (mut realtime, room, _) = joined(options, &[]);
    let (push, _) = realtime
        .broadcast(room, TOPIC, "a", r#"{}"#, at(1.0))
        .unwrap();
    let actions = realtime.dispose();
    assert_eq!(
        actions,
        [
            Action::Close {
                code: 1000,
                reason: ""
            },
            Action::Settle {
                push,
                outcome: PushOutcome::Error
            },
            Action::Forget(room),
            Action::ClearTimer,
        ]
    );
    assert_eq!(realtime.next_deadline(), None);
    // A close event arriving afterwards changes nothing.
    assert!(realtime.closed(at(2.0)).is_empty());
}

#[test]
fn serializer_1_0_0_joins_with_json_objects() {
    let mut realtime = realtime(Vsn::V1);
    let room = realtime.channel("room", ChannelOptions::default());
    let actions = realtime.subscribe(room, at(0.0)).unwrap();
    assert_eq!(actions[0], Action::Connect(URL.replace("2.0.0", "1.0.0")));
    let actions = realtime.opened(at(0.0));
    let Some(Action::Send(Frame::Text(join))) = actions.first() else {
        panic!("a text frame expected")
    };
    let join: Value = serde_json::from_str(join).unwrap();
    assert_eq!(join["event"], "phx_join");
    assert_eq!(join["topic"], TOPIC);
    let reply = json!({"topic": TOPIC, "event": "phx_reply", "ref": join["ref"],
                       "join_ref": join["join_ref"], "payload": {"status": "ok", "response": {}}});
    let actions = realtime.received(&text(reply), at(1.0));
    assert_eq!(statuses(&actions), [(Status::Subscribed, None)]);
    let (_, actions) = realtime
        .broadcast(room, TOPIC, "e", r#"{"a":1}"#, at(2.0))
        .unwrap();
    let Some(Action::Send(Frame::Text(push))) = actions.first() else {
        panic!("1.0.0 broadcasts are text")
    };
    let push: Value = serde_json::from_str(push).unwrap();
    assert_eq!(
        push["payload"],
        json!({"type": "broadcast", "event": "e", "payload": {"a": 1}})
    );
}

#[test]
fn frames_that_are_not_the_protocol_are_ignored() {
    let (mut realtime, _, _) = joined(ChannelOptions::default(), &[]);
    assert!(realtime
        .received(&Frame::Text("garbage".into()), at(1.0))
        .is_empty());
    assert!(realtime
        .received(
            &text(json!([null, null, "realtime:other", "broadcast", {}])),
            at(1.0)
        )
        .is_empty());
}

#[test]
fn a_broadcast_payload_that_is_not_json_is_refused() {
    let (mut realtime, room, _) = joined(ChannelOptions::default(), &[]);
    assert_eq!(
        realtime.broadcast(room, TOPIC, "e", "{", at(1.0)),
        Err(RealtimeError::PayloadNotJson)
    );
}
