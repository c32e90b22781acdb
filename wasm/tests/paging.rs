//! `listEntries` in keyset pages against the emulator, in both builds: more rows than a page, in
//! order, `onPage` after each page with a growing list, `withOlderFrom`, and a later page's
//! failure naming that page after the earlier ones were delivered. Small page sizes (through
//! `list_in_pages`) make many pages of a small table.
#![cfg(feature = "rest")]
#![cfg_attr(test, allow(clippy::unwrap_used))]

#[path = "faults/mod.rs"]
mod faults;

use std::cell::RefCell;
use std::rc::Rc;

use faults::*;
use geocache_client::{Client, EntryList};
use geocache_core::Timestamp;
use js_sys::Function;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

/// An `onPage` that keeps every list it is given.
fn collector() -> (Function, Rc<RefCell<Vec<JsValue>>>) {
    let lists = Rc::new(RefCell::new(Vec::new()));
    let kept = Rc::clone(&lists);
    let closure = Closure::<dyn FnMut(JsValue)>::new(move |list: JsValue| {
        kept.borrow_mut().push(list);
    });
    (closure.into_js_value().unchecked_into(), lists)
}

fn length(list: &JsValue) -> usize {
    get(list, "length").as_f64().expect("a length") as usize
}

/// (instant, id) of each entry: the keyset order is strictly descending.
fn keys(list: &EntryList) -> Vec<(i128, f64)> {
    (0..list.length())
        .map(|index| {
            let created_at = String::from(list.created_at(index as f64).expect("in range"));
            let instant = Timestamp::parse(&created_at)
                .expect("a timestamp")
                .unix_nanos();
            (instant, list.id(index as f64).expect("in range"))
        })
        .collect()
}

fn assert_newest_first(list: &EntryList) {
    let keys = keys(list);
    for pair in keys.windows(2) {
        assert!(
            pair[0].0 > pair[1].0 || (pair[0].0 == pair[1].0 && pair[0].1 > pair[1].1),
            "out of order: {:?}",
            pair
        );
    }
}

/// `list.ids()` called from JS.
fn js_ids(list: &JsValue) -> Vec<f64> {
    let ids: js_sys::Array = call(list, "ids").unchecked_into();
    ids.iter()
        .map(|id| id.as_f64().expect("a number"))
        .collect()
}

fn with_on_page(on_page: &Function) -> JsValue {
    object(&[("onPage", on_page.into())])
}

async fn list_all(client: &Client, on_page: &Function) -> EntryList {
    client
        .list_entries(with_on_page(on_page))
        .await
        .expect("listed")
}

#[wasm_bindgen_test]
async fn more_than_a_page_of_rows_all_come_back_newest_first() {
    let client = client(30_000);
    let name = unique("paging-many-");
    insert_rows(&name, 1_050).await;
    let fetches = record_fetches();
    let (on_page, lists) = collector();
    let list = list_all(&client, &on_page).await;
    let names: Vec<String> = (0..list.length())
        .map(|index| String::from(list.name(index as f64).expect("in range")))
        .collect();
    assert_eq!(names.iter().filter(|seen| **seen == name).count(), 1_050);
    assert_newest_first(&list);
    // Pages of 1,000: at least two with rows, then one with nothing past the cursor.
    let lists = lists.borrow();
    let requests = fetches.to("GET", LOGS);
    assert!(lists.len() >= 2, "{} pages", lists.len());
    assert_eq!(requests.len(), lists.len() + 1);
    assert!(
        requests[0].query.contains("limit=1000"),
        "{:?}",
        requests[0]
    );
    assert!(!requests[0].query.contains("or="), "{:?}", requests[0]);
    assert!(
        requests[1].query.contains("&or=%28created_at.lt.%22"),
        "{:?}",
        requests[1]
    );
    let lengths: Vec<usize> = lists.iter().map(length).collect();
    assert_eq!(lengths[0], 1_000);
    assert!(
        lengths.windows(2).all(|pair| pair[0] < pair[1]),
        "{lengths:?}"
    );
    assert_eq!(lengths.last().copied(), Some(list.length()));
    assert_eq!(js_ids(&lists[0]), list.ids()[..1_000]);
}

#[wasm_bindgen_test]
async fn small_pages_give_the_same_list_and_snapshots_keep_their_length() {
    let client = client(30_000);
    insert_rows(&unique("paging-small-"), 20).await;
    let whole = client
        .list_entries(JsValue::UNDEFINED)
        .await
        .expect("listed");
    let (on_page, lists) = collector();
    let paged = client
        .list_in_pages(7, Some(&on_page))
        .await
        .expect("listed");
    assert_eq!(paged.ids(), whole.ids());
    let lists = lists.borrow();
    assert_eq!(lists.len(), whole.length().div_ceil(7));
    // A snapshot is its page's prefix, whatever was read after it.
    assert_eq!(length(&lists[0]), 7);
    assert_eq!(length(&lists[1]), 14);
    let ids: js_sys::Array = call(&lists[1], "ids").unchecked_into();
    let expected: Vec<f64> = whole.ids()[..14].to_vec();
    assert_eq!(
        ids.iter()
            .map(|id| id.as_f64().unwrap())
            .collect::<Vec<_>>(),
        expected
    );
}

#[wasm_bindgen_test]
async fn older_entries_fill_in_after_a_fresh_reads_first_page() {
    let client = client(30_000);
    insert_rows(&unique("paging-older-"), 10).await;
    let older = client
        .list_entries(JsValue::UNDEFINED)
        .await
        .expect("listed");
    let newer_name = unique("paging-newer-");
    insert_rows(&newer_name, 3).await;
    let (on_page, lists) = collector();
    let fresh = client
        .list_in_pages(5, Some(&on_page))
        .await
        .expect("listed");
    let first_page = lists.borrow()[0].clone();
    assert_eq!(length(&first_page), 5);
    // As the page calls it: the first page of the reload, then the previous read after it.
    let with_older_from: Function = get(&first_page, "withOlderFrom").unchecked_into();
    let merged = with_older_from
        .call1(&first_page, &JsValue::from(older))
        .expect("merged");
    assert_eq!(js_ids(&merged), fresh.ids());
    assert_eq!(string(&call(&merged, "toArray"), "0.name"), newer_name);
    // The first page itself is unchanged.
    assert_eq!(js_ids(&first_page), fresh.ids()[..5]);
}

#[wasm_bindgen_test]
async fn a_failing_later_page_is_named_after_earlier_pages_were_delivered() {
    let client = client(5_000);
    insert_rows(&unique("paging-fail-"), 10).await;
    let (on_page, lists) = collector();
    // The second read of the table (page 2) gets a body that is not JSON: not retried.
    let plan = r#"{"rules": [{"methods": ["GET"], "paths": ["/rest/v1/geocache_logs"],
        "every": 2, "limit": 1, "fault": {"kind": "non_json_body"}}]}"#;
    let (result, stats) = with_faults(plan, client.list_in_pages(4, Some(&on_page))).await;
    assert_eq!(stats[0].fired, 1);
    let error = js_error(
        result.expect_err("page 2 failed"),
        "LogbookError",
        "invalid_json",
    );
    assert_eq!(get(&error, "page").as_f64(), Some(2.0));
    let message = string(&error, "message");
    assert!(message.starts_with("page 2: "), "{message}");
    let lists = lists.borrow();
    assert_eq!(lists.iter().map(length).collect::<Vec<_>>(), [4]);
}

#[wasm_bindgen_test]
async fn options_that_are_not_an_object_with_a_function_are_refused() {
    let client = client(5_000);
    for options in [JsValue::from(5), object(&[("onPage", JsValue::from("no"))])] {
        let error = client.list_entries(options).await.expect_err("refused");
        let value = JsValue::from(error);
        assert!(value.is_instance_of::<js_sys::TypeError>());
        assert_eq!(string(&value, "code"), "invalid_argument");
    }
    client
        .list_entries(JsValue::NULL)
        .await
        .expect("null is no options");
    client
        .list_entries(object(&[("onPage", JsValue::UNDEFINED)]))
        .await
        .expect("no onPage");
}
