//! convergence.json as R8 describes it: appends, `final` once, atomic writes, locks between
//! processes, and failures as warnings.
//!
//! Longer than 400 lines: convergence.json's behaviours under concurrent writers, locks,
//! crashes and bad files, each with its own fixture; they share the store's helpers.

use super::*;

fn observation(signal: &str, iterations: usize) -> Observation {
    Observation {
        signal: signal.into(),
        reason: format!("{signal} reason"),
        tool_iterations: iterations,
    }
}

fn final_state(reason: &str) -> FinalState {
    FinalState {
        reason: reason.into(),
        tool_iterations: 22,
        total_tokens: 45000,
        timestamp: timestamp_now(),
    }
}

#[test]
fn creates_directory_and_appends_json_level() {
    let root = tempfile::tempdir().unwrap();
    let store = ConvergenceStore::new(root.path().join(".forgeflare"));
    store
        .append_observations(&[observation("clean_test", 12)])
        .unwrap();
    store
        .append_observations(&[
            observation("stable_output", 18),
            observation("lint_clean", 18),
        ])
        .unwrap();
    let state = ConvergenceStore::read(store.path()).unwrap();
    let signals: Vec<_> = state
        .observations
        .iter()
        .map(|o| o.signal.as_str())
        .collect();
    assert_eq!(signals, ["clean_test", "stable_output", "lint_clean"]);
    assert!(state.final_state.is_none());
    assert!(
        !root
            .path()
            .join(".forgeflare/convergence.json.tmp")
            .exists()
    );
}

#[test]
fn final_is_written_once_per_session_and_keeps_observations() {
    let root = tempfile::tempdir().unwrap();
    let store = ConvergenceStore::new(root.path());
    store.append_observations(&[observation("a", 1)]).unwrap();
    assert!(
        store
            .write_final(final_state("convergence_signal"))
            .unwrap()
            .is_some()
    );
    assert!(
        store
            .write_final(final_state("end_turn"))
            .unwrap()
            .is_none()
    );
    let text = fs::read_to_string(store.path()).unwrap();
    let json: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert_eq!(json["final"]["reason"], "convergence_signal");
    assert_eq!(json["final"]["total_tokens"], 45000);
    assert_eq!(json["observations"][0]["signal"], "a");
    let timestamp = json["final"]["timestamp"].as_str().unwrap();
    assert!(
        timestamp.ends_with('Z') && timestamp.len() == 20,
        "{timestamp}"
    );

    store.clear().unwrap();
    assert!(!store.path().exists());
    assert!(
        store
            .write_final(final_state("end_turn"))
            .unwrap()
            .is_some()
    );
}

#[test]
fn clear_of_missing_file_is_fine() {
    let root = tempfile::tempdir().unwrap();
    ConvergenceStore::new(root.path().join("nope"))
        .clear()
        .unwrap();
}

#[test]
fn corrupt_file_is_moved_aside_not_lost() {
    let root = tempfile::tempdir().unwrap();
    let store = ConvergenceStore::new(root.path());
    fs::write(store.path(), "{ not json").unwrap();
    let warnings = store.append_observations(&[observation("a", 1)]).unwrap();
    assert_eq!(warnings.len(), 1);
    assert!(warnings[0].contains("moved it to"), "{warnings:?}");
    assert_eq!(
        fs::read_to_string(root.path().join("convergence.json.corrupt")).unwrap(),
        "{ not json"
    );
    assert_eq!(
        ConvergenceStore::read(store.path())
            .unwrap()
            .observations
            .len(),
        1
    );
}

#[test]
fn writes_go_through_a_temp_file_so_a_failed_write_leaves_the_old_file_whole() {
    let root = tempfile::tempdir().unwrap();
    let store = ConvergenceStore::new(root.path());
    store
        .append_observations(&[observation("kept", 1)])
        .unwrap();
    let before = fs::read(store.path()).unwrap();
    // The temp path is taken by a directory: the write fails before touching the file.
    fs::create_dir(root.path().join("convergence.json.tmp")).unwrap();
    let error = store
        .append_observations(&[observation("lost", 2)])
        .unwrap_err();
    assert!(error.to_string().starts_with("cannot create"), "{error}");
    assert_eq!(fs::read(store.path()).unwrap(), before);
}

#[test]
fn write_failure_is_an_error_value_not_a_panic() {
    let root = tempfile::tempdir().unwrap();
    // A file where the directory should be.
    let blocker = root.path().join(".forgeflare");
    fs::write(&blocker, "").unwrap();
    let store = ConvergenceStore::new(&blocker);
    let error = store
        .append_observations(&[observation("a", 1)])
        .unwrap_err();
    assert!(
        error.to_string().contains("cannot create directory"),
        "{error}"
    );
}

/// Holds the cross-process lock as another agent would (flock is per open file, so a second
/// open in this process conflicts exactly like another process's).
fn hold_lock(store: &ConvergenceStore) -> FileLock {
    fs::create_dir_all(&store.dir).unwrap();
    FileLock::acquire(&store.lock_file, Duration::ZERO).unwrap()
}

fn impatient_store(dir: &Path) -> ConvergenceStore {
    let mut store = ConvergenceStore::new(dir);
    store.lock_wait = Duration::from_millis(50);
    store
}

#[test]
fn a_busy_lock_names_what_was_not_written_and_the_next_write_records_it() {
    let root = tempfile::tempdir().unwrap();
    let store = impatient_store(root.path());
    store
        .append_observations(&[observation("first", 1)])
        .unwrap();
    let before = fs::read(store.path()).unwrap();

    let held = hold_lock(&store);
    let error = store
        .append_observations(&[
            observation("clean_test", 12),
            observation("lint\nclean", 12),
        ])
        .unwrap_err();
    let message = error.to_string();
    assert!(
        message.starts_with(&format!(
            "could not lock {} within ",
            root.path().join("convergence.json.lock").display()
        )),
        "{message}"
    );
    assert!(
        message.ends_with(
            "ms: another process holds it; not written: 2 observations (\"clean_test\" at \
             tool_iterations 12, \"lint\\nclean\" at tool_iterations 12); this runner keeps the \
             observations and writes them with its next write"
        ),
        "{message}"
    );
    assert_eq!(
        fs::read(store.path()).unwrap(),
        before,
        "nothing was written"
    );
    assert!(!root.path().join("convergence.json.tmp").exists());

    drop(held);
    store
        .append_observations(&[observation("next", 13)])
        .unwrap();
    let signals: Vec<String> = ConvergenceStore::read(store.path())
        .unwrap()
        .observations
        .into_iter()
        .map(|o| o.signal)
        .collect();
    assert_eq!(signals, ["first", "clean_test", "lint\nclean", "next"]);
}

#[test]
fn a_final_that_met_a_busy_lock_is_written_by_the_next_stop() {
    let root = tempfile::tempdir().unwrap();
    let store = impatient_store(root.path());
    let held = hold_lock(&store);
    let error = store.write_final(final_state("end_turn")).unwrap_err();
    assert!(
        error.to_string().ends_with(
            "not written: `final` (reason \"end_turn\"); the next Stop of this session writes `final`"
        ),
        "{error}"
    );
    drop(held);
    assert!(
        store
            .write_final(final_state("convergence_signal"))
            .unwrap()
            .is_some()
    );
    let state = ConvergenceStore::read(store.path()).unwrap();
    assert_eq!(state.final_state.unwrap().reason, "convergence_signal");
}

#[test]
fn clear_waits_for_the_lock_too() {
    let root = tempfile::tempdir().unwrap();
    let store = impatient_store(root.path());
    store
        .append_observations(&[observation("stale", 1)])
        .unwrap();
    let held = hold_lock(&store);
    let error = store.clear().unwrap_err();
    assert!(
        error
            .to_string()
            .ends_with("another process holds it; did not remove the stale convergence.json"),
        "{error}"
    );
    assert!(store.path().exists());
    drop(held);
    store.clear().unwrap();
    assert!(!store.path().exists());
}

#[test]
fn what_a_busy_lock_leaves_unwritten() {
    let many: Vec<Observation> = (0..7).map(|i| observation("s", i)).collect();
    let cases: [(&str, &[Observation], Option<&str>, &str); 4] = [
        (
            "one observation",
            &many[..1],
            None,
            "not written: 1 observation (\"s\" at tool_iterations 0); this runner keeps the \
             observations and writes them with its next write",
        ),
        (
            "more than are named",
            &many,
            None,
            "not written: 7 observations (\"s\" at tool_iterations 0, \"s\" at tool_iterations 1, \
             \"s\" at tool_iterations 2, \"s\" at tool_iterations 3, \"s\" at tool_iterations 4, \
             2 more); this runner keeps the observations and writes them with its next write",
        ),
        (
            "final only",
            &[],
            Some("end_turn"),
            "not written: `final` (reason \"end_turn\"); the next Stop of this session writes `final`",
        ),
        (
            "final and earlier observations",
            &many[..1],
            Some("block_limit_total"),
            "not written: 1 observation (\"s\" at tool_iterations 0) and `final` (reason \
             \"block_limit_total\"); this runner keeps the observations and writes them with its \
             next write; the next Stop of this session writes `final`",
        ),
    ];
    for (name, observations, reason, expected) in cases {
        let final_state = reason.map(final_state);
        assert_eq!(
            not_written(observations, final_state.as_ref()),
            expected,
            "{name}"
        );
    }
}

/// The largest signal a hook can leave: a name and a reason at their limits, plus the marker
/// of what was cut (`… (cut by hookhost: N more bytes)`).
fn largest(iterations: usize, filler: char) -> Observation {
    use crate::verdict::{REASON_MAX_BYTES, SIGNAL_NAME_MAX_BYTES};
    let marker = "… (cut by hookhost: 1000000 more bytes)";
    Observation {
        signal: "n".repeat(SIGNAL_NAME_MAX_BYTES) + marker,
        reason: filler.to_string().repeat(REASON_MAX_BYTES) + marker,
        tool_iterations: iterations,
    }
}

#[test]
fn a_long_session_keeps_the_first_observation_and_the_newest_and_counts_the_rest() {
    let root = tempfile::tempdir().unwrap();
    let store = ConvergenceStore::new(root.path());
    // One call at a time, and calls of several signals at once (R7: one write per call).
    let total = 3 * MAX_OBSERVATIONS + 5;
    store
        .append_observations(&[observation("first", 0)])
        .unwrap();
    let mut next = 1;
    while next < total {
        let batch: Vec<Observation> = (next..total.min(next + next % 7 + 1))
            .map(|i| observation(&format!("s{i}"), i))
            .collect();
        next += batch.len();
        store.append_observations(&batch).unwrap();
    }
    let text = fs::read_to_string(store.path()).unwrap();
    let json: serde_json::Value = serde_json::from_str(&text).unwrap();
    let dropped = (total - MAX_OBSERVATIONS) as u64;
    assert_eq!(json["dropped_observations"], dropped);
    let state = ConvergenceStore::read(store.path()).unwrap();
    let iterations: Vec<usize> = state
        .observations
        .iter()
        .map(|o| o.tool_iterations)
        .collect();
    let newest = total - (MAX_OBSERVATIONS - 1)..total;
    assert_eq!(
        iterations,
        std::iter::once(0).chain(newest).collect::<Vec<_>>(),
        "the first, then the newest in order"
    );
    assert_eq!(state.observations[0].signal, "first");
    assert_eq!(state.dropped_observations, dropped);
}

#[test]
fn the_file_stays_under_its_bound_whatever_the_signals_hold() {
    // Printable reasons fill the count first; control characters (escaped as six bytes each)
    // fill the byte budget first.
    for filler in ['r', '\u{1}'] {
        let root = tempfile::tempdir().unwrap();
        let store = ConvergenceStore::new(root.path());
        let calls = 2 * MAX_OBSERVATIONS;
        for i in 0..calls {
            store.append_observations(&[largest(i, filler)]).unwrap();
        }
        store.write_final(final_state("end_turn")).unwrap();
        // The bound, plus the file's indentation and `final`.
        let size = fs::metadata(store.path()).unwrap().len();
        assert!(
            size < (MAX_OBSERVATION_BYTES + 4096) as u64,
            "{filler:?}: {size} bytes"
        );
        let state = ConvergenceStore::read(store.path()).unwrap();
        assert_eq!(state.observations[0].tool_iterations, 0, "{filler:?}");
        assert_eq!(
            state.observations.len() as u64 + state.dropped_observations,
            calls as u64,
            "{filler:?}: every observation is kept or counted"
        );
        assert_eq!(
            state.observations.last().unwrap().tool_iterations,
            calls - 1
        );
        let kept: usize = state.observations.iter().map(json_len).sum();
        assert!(kept <= MAX_OBSERVATION_BYTES, "{filler:?}: {kept}");
    }
}

#[test]
fn final_is_still_written_once_when_observations_are_dropped() {
    let root = tempfile::tempdir().unwrap();
    let store = ConvergenceStore::new(root.path());
    let many: Vec<Observation> = (0..MAX_OBSERVATIONS + 10)
        .map(|i| observation("s", i))
        .collect();
    store.append_observations(&many).unwrap();
    assert!(
        store
            .write_final(final_state("convergence_signal"))
            .unwrap()
            .is_some()
    );
    store.append_observations(&many).unwrap();
    assert!(
        store
            .write_final(final_state("end_turn"))
            .unwrap()
            .is_none()
    );
    let state = ConvergenceStore::read(store.path()).unwrap();
    assert_eq!(state.final_state.unwrap().reason, "convergence_signal");
    assert_eq!(state.observations.len(), MAX_OBSERVATIONS);
    assert_eq!(state.dropped_observations, MAX_OBSERVATIONS as u64 + 20);
}

/// A file as hookhost wrote it before the bound: read, appended to and written back exactly
/// as then (no new key until something is dropped).
#[test]
fn a_file_from_before_the_bound_appends_unchanged() {
    let root = tempfile::tempdir().unwrap();
    let store = ConvergenceStore::new(root.path());
    let before = r#"{
  "observations": [
    {
      "signal": "clean_test",
      "reason": "3 consecutive clean test runs",
      "tool_iterations": 12
    }
  ],
  "final": {
    "reason": "convergence_signal",
    "tool_iterations": 22,
    "total_tokens": 45000,
    "timestamp": "2026-02-13T19:30:00Z"
  }
}"#;
    fs::write(store.path(), before).unwrap();
    store
        .append_observations(&[observation("lint_clean", 18)])
        .unwrap();
    let after = before.replace(
        "      \"tool_iterations\": 12\n    }\n",
        "      \"tool_iterations\": 12\n    },\n    {\n      \"signal\": \"lint_clean\",\n      \
         \"reason\": \"lint_clean reason\",\n      \"tool_iterations\": 18\n    }\n",
    );
    assert_eq!(fs::read_to_string(store.path()).unwrap(), after);

    // One written by the unbounded code, past the bound: bounded at its next write.
    let unbounded = ConvergenceState {
        observations: (0..300).map(|i| observation("s", i)).collect(),
        ..Default::default()
    };
    fs::write(store.path(), serde_json::to_vec_pretty(&unbounded).unwrap()).unwrap();
    store.append_observations(&[observation("s", 300)]).unwrap();
    let state = ConvergenceStore::read(store.path()).unwrap();
    assert_eq!(state.observations.len(), MAX_OBSERVATIONS);
    assert_eq!(state.observations[0].tool_iterations, 0);
    assert_eq!(state.dropped_observations, 301 - MAX_OBSERVATIONS as u64);
}

/// What a reader written for the unbounded file (the outer loop, an older hookhost) still
/// reads from a bounded one.
#[test]
fn a_reader_that_does_not_know_the_count_still_reads_the_file() {
    #[derive(Deserialize)]
    struct Before {
        observations: Vec<Observation>,
        #[serde(rename = "final")]
        final_state: Option<FinalState>,
    }
    let root = tempfile::tempdir().unwrap();
    let store = ConvergenceStore::new(root.path());
    let many: Vec<Observation> = (0..2 * MAX_OBSERVATIONS)
        .map(|i| observation("s", i))
        .collect();
    store.append_observations(&many).unwrap();
    store.write_final(final_state("end_turn")).unwrap();
    let read: Before = serde_json::from_slice(&fs::read(store.path()).unwrap()).unwrap();
    assert_eq!(read.observations.len(), MAX_OBSERVATIONS);
    assert_eq!(read.observations[0], many[0]);
    assert_eq!(read.final_state.unwrap().reason, "end_turn");
}
