//! Child processes whose stderr a test reads whole while it waits on them: [`spawn`].

use std::io::Read;
use std::process::{Child, Command, Stdio};
use std::thread::JoinHandle;

/// Starts `cmd` with stdout discarded and stderr read on a thread until the process closes
/// it (so a chatty child never blocks on a full pipe); join the handle for the text.
pub fn spawn(cmd: &mut Command) -> (Child, JoinHandle<String>) {
    let mut child = cmd
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stderr = child.stderr.take().unwrap();
    let reader = std::thread::spawn(move || {
        let mut text = String::new();
        let _ = stderr.read_to_string(&mut text);
        text
    });
    (child, reader)
}
