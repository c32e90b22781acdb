//! `import` refuses a malformed file as a whole: a non-zero exit, a message naming the line or
//! array index, and nothing imported (nor a database created).

use crate::support::{arg, command, dashboard_csv, succeed};

#[test]
fn a_malformed_file_is_refused_and_nothing_is_imported() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("emulator.sqlite3");
    let file = dir.path().join("entries");
    let good = dashboard_csv(1, 3, "TFTC");
    let mut invalid_utf8 = format!("{good}\r\n4,2026-11-20 10:11:12+00,Ada,").into_bytes();
    invalid_utf8.extend_from_slice(b"caf\xe9");
    let cases: Vec<(Vec<u8>, &str)> = vec![
        (
            format!("{good}\r\n4,2026-11-20 10:11:12+00,Ada,\"open").into_bytes(),
            "line 5: a quoted field is never closed",
        ),
        (
            format!("{good}\r\n4,2026-11-20 10:11:12+00,Ada").into_bytes(),
            "line 5: 3 fields",
        ),
        (
            format!("{good}\r\n4,2026-11-20 10:11:12+00,Ada,m,x").into_bytes(),
            "line 5: 5 fields",
        ),
        (
            format!("{good}\r\n4,2026-11-20 25:00:00+00,Ada,m").into_bytes(),
            "line 5: created_at",
        ),
        (
            format!("{good}\r\n4,2026-11-20 10:11:12,Ada,m").into_bytes(),
            "line 5: created_at",
        ),
        (
            format!("{good}\r\nfour,2026-11-20 10:11:12+00,Ada,m").into_bytes(),
            "line 5: id \"four\"",
        ),
        (
            format!("{good}\r\n4,2026-11-20 10:11:12+00,Ada,a\0b").into_bytes(),
            "line 5: the message holds U+0000",
        ),
        (invalid_utf8, "line 5: the message is not valid UTF-8"),
        (
            br#"[{"id":1,"created_at":"2026-11-20T10:11:12Z","name":"A","message":"m"},{"id":2}]"#
                .to_vec(),
            "entry at index 1: ",
        ),
        (b"[{\"id\":1,".to_vec(), "line 1, column"),
    ];
    for (bytes, says) in cases {
        std::fs::write(&file, &bytes).unwrap();
        let output = command(&["import", "--db", arg(&db), arg(&file)]);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(!output.status.success(), "{says}");
        assert!(stderr.contains(says), "expected {says:?} in {stderr:?}");
        assert!(stderr.contains("nothing was imported"), "{stderr}");
        assert!(!db.exists(), "{says}: a refused import creates no database");
    }

    // Into an existing database: still nothing of the file.
    std::fs::write(&file, &good).unwrap();
    succeed(&["import", "--db", arg(&db), arg(&file)]);
    std::fs::write(
        &file,
        format!("{}\r\n9,not a time,Ada,m", dashboard_csv(4, 2, "new")),
    )
    .unwrap();
    assert!(!command(&["import", "--db", arg(&db), arg(&file)])
        .status
        .success());
    let exported = succeed(&["export", "--db", arg(&db), "--format", "csv"]);
    assert_eq!(
        exported, good,
        "the dashboard's CSV comes back byte for byte"
    );
}
