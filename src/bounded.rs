//! Bounded reads of what others write: abex reads the output of code it does not trust (a
//! test binary that prints a gigabyte, a worker line that never ends, a model endpoint that
//! streams without end), and keeps only what a person needs, in memory of a known size.
//!
//! - [`Lines`]: lines of at most a given length; a longer one is cut and says so.
//! - [`TestOutput`]: what a test run printed, kept as libtest's failing tests' lines, the
//!   start and end of each failure's section (the captured output first, the panic message
//!   with its expected and actual values last), and the last lines; everything else is counted.
//! - [`read_body`]: a body of at most a given size, else an error that says so.

use std::collections::VecDeque;
use std::io::{BufRead, BufReader, Read};

/// One line read by [`Lines`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Line {
    /// The whole line, without its newline.
    Whole(String),
    /// A line longer than the cap: its start, and its full length in bytes.
    Cut {
        /// Its first bytes (at most the cap).
        start: String,
        /// Its length.
        len: usize,
    },
}

impl Line {
    /// The line as kept: a cut line ends with `… [cut: N bytes]`.
    pub fn into_text(self) -> String {
        match self {
            Line::Whole(s) => s,
            Line::Cut { start, len } => format!("{start}… [cut: {len} bytes]"),
        }
    }
}

/// The lines of a reader, each at most `cap` bytes held at a time.
pub struct Lines<R> {
    reader: BufReader<R>,
    cap: usize,
}

impl<R: Read> Lines<R> {
    /// Lines of `reader`, each cut at `cap` bytes.
    pub fn new(reader: R, cap: usize) -> Lines<R> {
        Lines { reader: BufReader::with_capacity(64 << 10, reader), cap }
    }
}

impl<R: Read> Iterator for Lines<R> {
    type Item = Line;

    fn next(&mut self) -> Option<Line> {
        let mut kept: Vec<u8> = Vec::new();
        let mut len = 0usize;
        loop {
            let buf = match self.reader.fill_buf() {
                Ok(b) => b,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(_) => &[],
            };
            if buf.is_empty() {
                // End of input: a last line without a newline is still a line.
                return (len > 0).then(|| line(kept, len, self.cap));
            }
            let (chunk, done) = match buf.iter().position(|&b| b == b'\n') {
                Some(at) => (&buf[..at], Some(at + 1)),
                None => (buf, None),
            };
            let room = self.cap.saturating_sub(kept.len());
            kept.extend_from_slice(&chunk[..chunk.len().min(room)]);
            len += chunk.len();
            let used = done.unwrap_or(chunk.len());
            self.reader.consume(used);
            if done.is_some() {
                return Some(line(kept, len, self.cap));
            }
        }
    }
}

fn line(kept: Vec<u8>, len: usize, cap: usize) -> Line {
    let mut text = String::from_utf8_lossy(&kept).into_owned();
    if text.ends_with('\r') {
        text.pop();
    }
    if len > cap {
        Line::Cut { start: text, len }
    } else {
        Line::Whole(text)
    }
}

/// Longest line of test output kept whole.
const TEST_LINE: usize = 4 << 10;
/// Lines kept from the start and from the end of each failure's section.
const SECTION_HEAD: usize = 5;
const SECTION_TAIL: usize = 30;
/// Failure sections kept.
const SECTIONS: usize = 16;
/// `test … FAILED` and `running N tests` lines kept.
const FAILED_LINES: usize = 1000;
/// Last lines kept.
const TAIL: usize = 100;

/// One failure's section of libtest's output (`---- name stdout ----` and what follows).
#[derive(Default)]
struct Section {
    header: String,
    head: Vec<String>,
    tail: VecDeque<String>,
    cut: usize,
}

/// What a test run printed, kept within a bound (about 1 MiB at most: see the module
/// documentation).
#[derive(Default)]
pub struct TestOutput {
    /// libtest's `running N tests` and `test … FAILED` lines.
    failed: Vec<String>,
    sections: Vec<Section>,
    in_section: bool,
    tail: VecDeque<String>,
    lines: usize,
    bytes: usize,
}

impl TestOutput {
    /// Reads all of `reader`.
    pub fn read(reader: impl Read) -> TestOutput {
        let mut out = TestOutput::default();
        for line in Lines::new(reader, TEST_LINE) {
            out.push(line);
        }
        out
    }

    /// Reads all of `reader`, setting `failed` as soon as libtest reports a failed test (a
    /// `test NAME ... FAILED` line), while the rest of the binary's tests may still run.
    pub fn read_watching(reader: impl Read, failed: &std::sync::atomic::AtomicBool) -> TestOutput {
        let mut out = TestOutput::default();
        for line in Lines::new(reader, TEST_LINE) {
            if out.push(line) {
                failed.store(true, std::sync::atomic::Ordering::SeqCst);
            }
        }
        out
    }

    /// Adds the lines of `other` (stderr after stdout).
    pub fn extend(&mut self, other: TestOutput) {
        self.failed.extend(other.failed);
        self.failed.truncate(FAILED_LINES);
        self.sections.extend(other.sections);
        self.sections.truncate(SECTIONS);
        for l in other.tail {
            self.keep_tail(l);
        }
        self.lines += other.lines;
        self.bytes += other.bytes;
    }

    /// Keeps what is worth keeping of `line`: whether it reports a failed test.
    fn push(&mut self, line: Line) -> bool {
        let text = line.into_text();
        self.lines += 1;
        self.bytes += text.len() + 1;
        let failed = text.starts_with("test ") && text.ends_with(" ... FAILED");
        let summary = failed || text.starts_with("running ");
        if summary && self.failed.len() < FAILED_LINES {
            self.failed.push(text.clone());
        }
        if text.starts_with("---- ") && text.ends_with(" ----") {
            self.in_section = self.sections.len() < SECTIONS;
            if self.in_section {
                self.sections.push(Section { header: text.clone(), ..Section::default() });
            }
        } else if text.starts_with("failures:") || text.starts_with("test result:") {
            self.in_section = false;
        } else if self.in_section {
            if let Some(s) = self.sections.last_mut() {
                if s.head.len() < SECTION_HEAD {
                    s.head.push(text.clone());
                } else {
                    s.tail.push_back(text.clone());
                    if s.tail.len() > SECTION_TAIL {
                        s.tail.pop_front();
                        s.cut += 1;
                    }
                }
            }
        }
        self.keep_tail(text);
        failed
    }

    fn keep_tail(&mut self, text: String) {
        self.tail.push_back(text);
        if self.tail.len() > TAIL {
            self.tail.pop_front();
        }
    }

    /// The kept output as libtest's: its `running` and failing tests' lines, each failure's
    /// section (its start, `… N lines cut …`, its end), then the last lines, after a line that
    /// says how much was left out. `rust::suite::failure_of` reads it as libtest's own.
    pub fn text(&self) -> String {
        let mut out: Vec<String> = self.failed.clone();
        if !self.sections.is_empty() {
            out.push(String::new());
            out.push("failures:".into());
            out.push(String::new());
        }
        for s in &self.sections {
            out.push(s.header.clone());
            out.extend(s.head.iter().cloned());
            if s.cut > 0 {
                out.push(format!("… [{} lines cut]", s.cut));
            }
            out.extend(s.tail.iter().cloned());
        }
        if !self.sections.is_empty() {
            // As in libtest's own output, where the list of failed tests follows the sections.
            out.push(String::new());
            out.push("failures:".into());
        }
        if self.lines > self.tail.len() {
            out.push(format!(
                "… [{} lines, {} bytes in all; the last {} follow]",
                self.lines,
                self.bytes,
                self.tail.len()
            ));
        }
        out.extend(self.tail.iter().cloned());
        out.join("\n")
    }
}

/// Reads at most `cap` bytes of `reader`; `Err(read)` when there is more (`read` is how many
/// bytes were read before abex stopped), and nothing more is read.
pub fn read_body(reader: impl Read, cap: usize) -> Result<Vec<u8>, usize> {
    let mut buf = Vec::new();
    let mut limited = reader.take(cap as u64 + 1);
    let _ = limited.read_to_end(&mut buf);
    if buf.len() > cap {
        return Err(buf.len());
    }
    Ok(buf)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_line_past_the_cap_is_cut_and_the_next_one_is_whole() {
        let text = format!("short\n{}\nafter\nlast", "x".repeat(10_000));
        let lines: Vec<Line> = Lines::new(text.as_bytes(), 100).collect();
        assert_eq!(lines[0], Line::Whole("short".into()));
        assert_eq!(lines[1], Line::Cut { start: "x".repeat(100), len: 10_000 });
        assert_eq!(lines[2], Line::Whole("after".into()));
        assert_eq!(lines[3], Line::Whole("last".into()));
        assert_eq!(lines.len(), 4);
        assert!(lines[1].clone().into_text().ends_with("… [cut: 10000 bytes]"));
    }

    #[test]
    fn test_output_keeps_the_failed_lines_each_section_s_ends_and_the_tail() {
        let mut text =
            String::from("test a::bad ... FAILED\n\nfailures:\n\n---- a::bad stdout ----\n");
        for i in 0..1000 {
            text.push_str(&format!("line {i}\n"));
        }
        text.push_str("the message\n\nfailures:\n    a::bad\n");
        let out = TestOutput::read(text.as_bytes()).text();
        assert!(out.starts_with("test a::bad ... FAILED\n"), "{out}");
        assert!(out.contains("line 0\n") && out.contains("… [967 lines cut]\nline 972\n"), "{out}");
        assert!(out.contains("the message") && out.lines().count() < 200, "{out}");
    }

    #[test]
    fn a_body_past_its_cap_is_an_error_and_is_not_read_further() {
        assert_eq!(read_body(&b"hello"[..], 5), Ok(b"hello".to_vec()));
        let endless = std::io::repeat(b'x');
        assert_eq!(read_body(endless, 1000), Err(1001));
    }
}
