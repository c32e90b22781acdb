//! Newest-first order, guaranteed here whatever order the server used.

use std::cmp::Reverse;

use crate::logbook::entry::Entry;

/// Sorts by the instant of `created_at`, newest first. Comparing instants rather than strings
/// makes `…T12:00:00+02:00` older than `…T11:00:00Z`. The sort is stable: entries created at the
/// same instant keep the server's order.
pub fn sort_newest_first(entries: &mut [Entry]) {
    entries.sort_by_key(|entry| Reverse(entry.created_at.unix_nanos()));
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::logbook::test_support::entry;
    use crate::logbook::timestamp::Timestamp;
    use proptest::prelude::*;

    fn at(id: f64, created_at: &str) -> Entry {
        Entry {
            id,
            created_at: Timestamp::parse(created_at).unwrap(),
            name: String::new(),
            message: String::new(),
        }
    }

    fn ids(entries: &[Entry]) -> Vec<f64> {
        entries.iter().map(|entry| entry.id).collect()
    }

    #[test]
    fn orders_by_instant_not_by_text() {
        let mut entries = vec![
            at(1.0, "2024-05-01T12:00:00+02:00"), // 10:00Z
            at(2.0, "2024-05-01T11:00:00Z"),
            at(3.0, "2024-05-01 10:30:00.5+00"),
            at(4.0, "2024-04-30T23:00:00-12:00"), // 05-01 11:00Z, the same instant as 2
        ];
        sort_newest_first(&mut entries);
        assert_eq!(ids(&entries), [2.0, 4.0, 3.0, 1.0]);
    }

    /// Entries whose timestamps come from a small pool, so ties are common; ids record input order.
    fn numbered_entries() -> impl Strategy<Value = Vec<Entry>> {
        prop::collection::vec(entry(), 1..6).prop_flat_map(|pool| {
            let pool_len = pool.len();
            prop::collection::vec(0..pool_len, 0..24).prop_map(move |picks| {
                picks
                    .into_iter()
                    .enumerate()
                    .map(|(position, pick)| Entry {
                        id: position as f64,
                        ..pool[pick].clone()
                    })
                    .collect()
            })
        })
    }

    proptest! {
        #[test]
        fn sorted_by_instant_descending(mut entries in numbered_entries()) {
            sort_newest_first(&mut entries);
            for pair in entries.windows(2) {
                prop_assert!(pair[0].created_at.unix_nanos() >= pair[1].created_at.unix_nanos());
            }
        }

        #[test]
        fn is_a_permutation(entries in numbered_entries()) {
            let mut sorted = entries.clone();
            sort_newest_first(&mut sorted);
            let mut sorted_ids = ids(&sorted);
            sorted_ids.sort_by(f64::total_cmp);
            prop_assert_eq!(sorted_ids, ids(&entries));
        }

        #[test]
        fn ties_keep_the_server_order(mut entries in numbered_entries()) {
            sort_newest_first(&mut entries);
            for pair in entries.windows(2) {
                if pair[0].created_at.unix_nanos() == pair[1].created_at.unix_nanos() {
                    prop_assert!(pair[0].id < pair[1].id);
                }
            }
        }

        #[test]
        fn idempotent(mut entries in numbered_entries()) {
            sort_newest_first(&mut entries);
            let once = entries.clone();
            sort_newest_first(&mut entries);
            prop_assert_eq!(entries, once);
        }

        #[test]
        fn independent_of_input_order_up_to_ties(
            (entries, shuffled) in numbered_entries()
                .prop_flat_map(|entries| (Just(entries.clone()), Just(entries).prop_shuffle()))
        ) {
            let mut a = entries;
            let mut b = shuffled;
            sort_newest_first(&mut a);
            sort_newest_first(&mut b);
            prop_assert_eq!(tie_groups(&a), tie_groups(&b));
        }
    }

    /// Consecutive entries with equal instants, each group as its sorted ids.
    fn tie_groups(entries: &[Entry]) -> Vec<(i128, Vec<u64>)> {
        let mut groups: Vec<(i128, Vec<u64>)> = Vec::new();
        for entry in entries {
            let instant = entry.created_at.unix_nanos();
            match groups.last_mut() {
                Some((last, ids)) if *last == instant => ids.push(entry.id as u64),
                _ => groups.push((instant, vec![entry.id as u64])),
            }
        }
        for (_, ids) in &mut groups {
            ids.sort_unstable();
        }
        groups
    }
}
