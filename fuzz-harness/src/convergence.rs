//! `.forgeflare/convergence.json`, which a project may commit with anything in it: read by the
//! outer loop (`ConvergenceStore::read`), and read-modified-written by every signalling call
//! (`append_observations`, `write_final`), which must cope with whatever is there.
//!
//! Input: `[0, observations, final, file...]` (the seeds: files as hookhost writes them), or
//! `[1, arbitrary...]`: the file's bytes or a state built field by field, the observations
//! appended and a final state.
//!
//! Properties: no panic; an unreadable file is moved aside with a warning, never a failed
//! write; the file stays within its bounds (the first observation and the newest that fit,
//! at most `MAX_OBSERVATIONS`), counts what it dropped, keeps `final` once written, and reads
//! back as it was written.

use std::path::PathBuf;

use arbitrary::{Arbitrary, Result, Unstructured};
use hookhost::convergence::{
    ConvergenceState, ConvergenceStore, FinalState, MAX_OBSERVATIONS, Observation,
};

/// One execution.
pub fn fuzz(data: &[u8]) {
    let (mode, rest) = crate::split_mode(data);
    let _ = match mode % 2 {
        0 => raw(rest),
        _ => structured(rest),
    };
}

fn observation(n: usize) -> Observation {
    Observation {
        signal: "converged".into(),
        reason: format!("tests pass ({n})"),
        tool_iterations: n,
    }
}

fn raw(rest: &[u8]) -> Result<()> {
    let [observations, final_state, file @ ..] = rest else {
        return Ok(());
    };
    let observations: Vec<Observation> = (0..usize::from(*observations % 4))
        .map(observation)
        .collect();
    let final_state = (*final_state % 2 == 1).then(|| FinalState {
        reason: "end_turn".into(),
        tool_iterations: 3,
        total_tokens: 1200,
        timestamp: "2026-02-13T19:30:00Z".into(),
    });
    run(file, &observations, final_state);
    Ok(())
}

#[derive(Debug, Arbitrary)]
enum File {
    Bytes(Vec<u8>),
    State {
        observations: Vec<(String, String, usize)>,
        dropped: u64,
        final_state: Option<(String, usize, u64, String)>,
    },
}

fn final_of(
    (reason, tool_iterations, total_tokens, timestamp): (String, usize, u64, String),
) -> FinalState {
    FinalState {
        reason,
        tool_iterations,
        total_tokens,
        timestamp,
    }
}

fn observations_of(list: Vec<(String, String, usize)>) -> Vec<Observation> {
    list.into_iter()
        .map(|(signal, reason, tool_iterations)| Observation {
            signal,
            reason,
            tool_iterations,
        })
        .collect()
}

fn structured(rest: &[u8]) -> Result<()> {
    let mut u = Unstructured::new(rest);
    let file = match u.arbitrary()? {
        File::Bytes(bytes) => bytes,
        File::State {
            observations,
            dropped,
            final_state,
        } => serde_json::to_vec_pretty(&ConvergenceState {
            observations: observations_of(observations),
            dropped_observations: dropped,
            final_state: final_state.map(final_of),
        })
        .expect("a state serializes"),
    };
    let observations = observations_of(u.arbitrary()?);
    let final_state = u.arbitrary::<Option<_>>()?.map(final_of);
    run(&file, &observations, final_state);
    Ok(())
}

/// A fresh directory holding `file` as convergence.json.
fn project(file: &[u8]) -> PathBuf {
    let dir = crate::scratch::subdir("convergence");
    for name in [
        "convergence.json",
        "convergence.json.corrupt",
        "convergence.json.tmp",
    ] {
        let _ = std::fs::remove_file(dir.join(name));
    }
    std::fs::write(dir.join("convergence.json"), file).expect("the scratch convergence.json");
    dir
}

/// `observations` appended to `file`, then `final_state` written.
pub fn run(file: &[u8], observations: &[Observation], final_state: Option<FinalState>) {
    let dir = project(file);
    let store = ConvergenceStore::new(&dir);
    let path = store.path().to_path_buf();
    let before = ConvergenceStore::read(&path).ok();
    let warnings = store
        .append_observations(observations)
        .expect("a write in a private directory");
    assert_eq!(
        before.is_none(),
        warnings
            .iter()
            .any(|w| w.contains("was not valid convergence JSON")),
        "a file that does not read, and no warning (or the other way round): {warnings:?}"
    );
    let after = ConvergenceStore::read(&path).expect("what hookhost wrote reads back");
    let before = before.unwrap_or_default();
    let all: Vec<&Observation> = before.observations.iter().chain(observations).collect();
    assert!(after.observations.len() <= MAX_OBSERVATIONS);
    assert_eq!(
        after.observations.first(),
        all.first().copied(),
        "the first observation"
    );
    let kept = after.observations.len();
    if kept > 1 {
        let newest = &all[all.len() - (kept - 1)..];
        assert!(
            after.observations[1..].iter().eq(newest.iter().copied()),
            "not the newest observations"
        );
    }
    let dropped = (all.len() - kept) as u64;
    assert_eq!(
        after.dropped_observations,
        before.dropped_observations.saturating_add(dropped),
        "the dropped observations' count"
    );
    assert_eq!(after.final_state, before.final_state, "`final` changed");
    let json = serde_json::to_vec(&after).expect("a state serializes");
    assert_eq!(
        serde_json::from_slice::<ConvergenceState>(&json).ok(),
        Some(after)
    );
    if let Some(final_state) = final_state {
        let written = store.write_final(final_state.clone()).expect("a write");
        assert!(written.is_some(), "the session's first Stop writes `final`");
        let read = ConvergenceStore::read(&path).expect("what hookhost wrote reads back");
        assert_eq!(read.final_state, Some(final_state.clone()));
        let again = store.write_final(final_state).expect("a write");
        assert!(again.is_none(), "`final` written twice in a session");
    }
}
