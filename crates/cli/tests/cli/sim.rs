//! `plateau sim` serves the simulated engine on loopback and stops cleanly on Ctrl-C.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::Stdio;
use std::time::{Duration, Instant};

use crate::common::plateau;

#[test]
fn sim_serves_models_and_stops_on_ctrl_c() {
    let mut child = plateau(&["sim", "--port", "0", "--profile", "fixed", "--quiet"])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let url = line.trim().rsplit(' ').next().unwrap().to_owned();
    assert!(
        url.starts_with("http://127.0.0.1:") && url.ends_with("/v1"),
        "{line}"
    );
    let addr = url.trim_start_matches("http://").trim_end_matches("/v1");

    let mut stream = TcpStream::connect(addr).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    stream
        .write_all(b"GET /v1/models HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        .unwrap();
    let mut response = String::new();
    stream.read_to_string(&mut response).unwrap();
    assert!(response.starts_with("HTTP/1.1 200"), "{response}");
    assert!(response.contains("\"id\":\"plateau-sim\""), "{response}");

    let status = std::process::Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
    let deadline = Instant::now() + Duration::from_secs(10);
    let code = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s.code();
        }
        assert!(Instant::now() < deadline, "plateau sim did not stop");
        std::thread::sleep(Duration::from_millis(20));
    };
    assert_eq!(code, Some(0));
}

#[test]
fn unknown_profile_is_bad_input() {
    let (code, _, err) =
        crate::common::run(&mut plateau(&["sim", "--port", "0", "--profile", "nope"]));
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("nope") && err.contains("fixed"), "{err}");
}
