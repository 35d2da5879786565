// Unit tests of the harness runtime. `runtime/core.rs` is source text pasted into user crates, so it is
// included here as a module body, exactly as the generated harness includes it, and its private
// helpers are tested from a child module.

#[allow(warnings, clippy::all)]
mod rt {
    include!("core.rs");
    include!("probe.rs");

    #[cfg(test)]
    mod tests {
        use super::*;
        use std::io::{self, Read, Write};

        fn parse(text: &str) -> Json {
            Json::parse(text).unwrap_or_else(|e| panic!("{text}: {e}"))
        }

        fn num(n: &str) -> Json {
            Json::Num(n.to_string())
        }

        fn s(t: &str) -> Json {
            Json::Str(t.to_string())
        }

        fn from<T: FromJson>(text: &str) -> Result<T, String> {
            T::from_json(&parse(text))
        }

        fn fails<T: FromJson + std::fmt::Debug>(text: &str, needle: &str) {
            match from::<T>(text) {
                Ok(v) => panic!("{text} decoded as {v:?}"),
                Err(e) => assert!(e.contains(needle), "{text}: {e:?} lacks {needle:?}"),
            }
        }

        // ---- probes ----

        #[test]
        fn branch_distances_follow_korel_for_every_operator() {
            let (a, b) = (Num::I(183), Num::I(185));
            assert_eq!(branch_distance(b'<', a, b, true), 0.0);
            assert_eq!(branch_distance(b'<', a, b, false), 2.0);
            assert_eq!(branch_distance(b'<', b, b, true), 1.0, "integers: one more");
            assert_eq!(branch_distance(b'l', b, b, true), 0.0);
            assert_eq!(branch_distance(b'>', a, b, true), 3.0);
            assert_eq!(branch_distance(b'g', a, b, true), 2.0);
            assert_eq!(branch_distance(b'=', a, b, true), 2.0);
            assert_eq!(branch_distance(b'!', b, b, true), 1.0);
            assert_eq!(branch_distance(b'=', Num::F(37.4), Num::F(37.5), false), 0.0);
            assert!(branch_distance(b'=', Num::F(f64::NAN), Num::F(1.0), true) > 0.0);
            assert_eq!(holds(b'<', Num::U(u128::MAX), Num::I(5)), Some(false));
        }

        #[test]
        fn a_spec_parses_and_recomputes_the_originals_side() {
            let spec = parse_spec(
                r#"{"site":{"cmp":7,"op":"<","l":{"op":"/","l":{"op":"+","l":{"t":1},"r":{"t":2}},"r":{"t":3}},"r":"b"},
                   "guards":[{"top":4,"want":false,"cond":{"or":[{"c":5},{"not":{"b":6}}]}}]}"#,
            );
            let mut s = ProbeState::default();
            s.taps = vec![(1, Num::I(20_000)), (2, Num::I(9)), (3, Num::I(18))];
            match spec.site {
                ProbeSite::Cmp(7, b'<', ref l, ref r) => {
                    assert_eq!(eval(l, &s, None, Some(Num::I(185))), Some(Num::I(1111)));
                    assert_eq!(eval(r, &s, None, Some(Num::I(185))), Some(Num::I(185)));
                }
                ref other => panic!("{other:?}"),
            }
            assert_eq!(spec.atoms, [5, 6]);
            // `x < 3 || !flag` wanted false: x is 1 (2 to go), flag is false (1 to go).
            note_atom(&mut s, 5, 0.0, 2.0);
            note_atom(&mut s, 6, 1.0, 0.0);
            assert_eq!(cond_distance(&spec.guards[0].cond, false, &s), 3.0);
            assert!(matches!(parse_spec("1").site, ProbeSite::None(_)));
        }

        #[test]
        fn casts_wrap_as_rust_casts_do() {
            assert_eq!(cast("u8", Num::I(300)), Some(Num::I(44)));
            assert_eq!(cast("i8", Num::I(200)), Some(Num::I(-56)));
            assert_eq!(cast("u32", Num::F(-3.7)), Some(Num::I(0)));
            assert_eq!(cast("f32", Num::I(1)), Some(Num::F(1.0)));
            assert_eq!(arith("/", Num::I(7), Num::I(0)), None);
            assert_eq!(arith("%", Num::F(7.5), Num::I(2)), Some(Num::F(1.5)));
        }

        #[test]
        fn numbers_are_read_from_primitives_only() {
            assert_eq!((&N(&7u8)).abex_num(), Some(Num::I(7)));
            assert_eq!((&N(&u128::MAX)).abex_num(), Some(Num::U(u128::MAX)));
            assert_eq!((&N(&'a')).abex_num(), Some(Num::I(97)));
            assert_eq!((&N(&2.5f32)).abex_num(), Some(Num::F(2.5)));
            assert_eq!((&N(&"text")).abex_num(), None);
            assert_eq!((&N(&vec![1u8])).abex_num(), None);
        }

        // ---- cutting long texts ----

        #[test]
        fn long_texts_are_cut_to_their_start_length_and_hash_as_the_core_cuts_them() {
            assert_eq!(
                (CUT_AT, CUT_KEEP, CUT_MARK),
                (crate::value::CUT_AT, crate::value::CUT_KEEP, crate::value::CUT_MARK)
            );
            let short = "x".repeat(CUT_AT);
            assert_eq!(cut(&short), short.as_str());
            let long = format!("{}é{}", "a".repeat(CUT_KEEP - 1), "b".repeat(5000));
            let other = format!("{}c", &long[..long.len() - 1]);
            let (a, b) = (cut(&long).into_owned(), cut(&other).into_owned());
            assert!(a.starts_with(&"a".repeat(CUT_KEEP - 1)), "{a}");
            assert!(a.contains(&format!("{CUT_MARK}{}, fnv1a ", long.len())), "{a}");
            assert_ne!(a, b, "texts that differ after their start differ once cut");
            assert!(a.len() < 400);
            let line = encode(&Outcome::Err("E".into(), long.clone()));
            assert!(line.len() < 450 && line.contains(CUT_MARK), "{line}");
            let o =
                crate::exec::worker::parse_answer(&encode(&Outcome::Ok(long))).unwrap().unwrap();
            assert!(o.is_cut(), "the core sees the runtime's cut: {o:?}");
        }

        // ---- JSON parsing ----

        #[test]
        fn parses_scalars_and_keeps_number_text() {
            assert_eq!(parse("null"), Json::Null);
            assert_eq!(parse(" true "), Json::Bool(true));
            assert_eq!(parse("\tfalse\r\n"), Json::Bool(false));
            for n in ["0", "-0", "12", "-7", "1.5", "-0.25e+10", "3E-2", "1e400"] {
                assert_eq!(parse(n), num(n));
            }
            let big = u128::MAX.to_string();
            assert_eq!(parse(&big), num(&big));
        }

        #[test]
        fn parses_nested_values() {
            let j = parse(r#" [1, [ "a", {"k": [null, {}]}, []], {"x": 1, "x": 2} ] "#);
            let want = Json::Arr(vec![
                num("1"),
                Json::Arr(vec![
                    s("a"),
                    Json::Obj(vec![(
                        "k".to_string(),
                        Json::Arr(vec![Json::Null, Json::Obj(vec![])]),
                    )]),
                    Json::Arr(vec![]),
                ]),
                Json::Obj(vec![("x".to_string(), num("1")), ("x".to_string(), num("2"))]),
            ]);
            assert_eq!(j, want);
        }

        #[test]
        fn parses_every_string_escape() {
            assert_eq!(parse(r#""\"\\\/\b\f\n\r\t""#), s("\"\\/\u{8}\u{c}\n\r\t"));
            assert_eq!(parse(r#""\u0041\u00e9\u20AC\u0000""#), s("Aé€\u{0}"));
            assert_eq!(parse(r#""\ud83d\ude00 x""#), s("😀 x"));
            assert_eq!(parse(r#""\uD834\uDD1E""#), s("𝄞"));
            assert_eq!(parse("\"héllo wörld 😀\""), s("héllo wörld 😀"));
            assert_eq!(parse(r#""""#), s(""));
            assert_eq!(parse(r#""a\nb""#), s("a\nb"));
        }

        #[test]
        fn rejects_malformed_json() {
            for bad in [
                "",
                "   ",
                "nul",
                "tru",
                "[1,]",
                "[1 2]",
                "[",
                "{\"a\" 1}",
                "{\"a\":}",
                "{1:2}",
                "{\"a\":1,}",
                "01",
                "-",
                "1.",
                ".5",
                "+1",
                "1e",
                "1e+",
                "\"abc",
                "\"a\\x\"",
                "\"\\u12\"",
                "\"\\u12G4\"",
                "\"\\ud83d\"",
                "\"\\ud83dx\"",
                "\"\\ud83d\\u0041\"",
                "\"\\ude00\"",
                "\"tab\there\"",
                "\"nl\nhere\"",
                "[1] x",
                "1 2",
                "NaN",
            ] {
                assert!(Json::parse(bad).is_err(), "{bad:?} parsed as {:?}", Json::parse(bad));
            }
            let e = Json::parse("[1,]").unwrap_err();
            assert!(e.contains("invalid JSON") && e.contains("byte 3"), "{e}");
        }

        #[test]
        fn limits_nesting_instead_of_overflowing_the_stack() {
            let deep = "[".repeat(100_000);
            assert!(Json::parse(&deep).unwrap_err().contains("too deep"));
            let ok = format!("{}{}", "[".repeat(400), "]".repeat(400));
            assert!(Json::parse(&ok).is_ok());
        }

        // ---- FromJson ----

        #[test]
        fn integers_decode_within_their_range_only() {
            assert_eq!(from::<i8>("-128"), Ok(-128));
            assert_eq!(from::<i8>("127"), Ok(127));
            fails::<i8>("128", "128 is out of range for i8");
            fails::<i8>("-129", "out of range for i8");
            assert_eq!(from::<u8>("255"), Ok(255));
            fails::<u8>("256", "out of range for u8");
            fails::<u8>("-1", "out of range for u8");
            assert_eq!(from::<u8>("-0"), Ok(0));
            assert_eq!(from::<i16>("-32768"), Ok(i16::MIN));
            assert_eq!(from::<u16>("65535"), Ok(u16::MAX));
            assert_eq!(from::<i32>("2147483647"), Ok(i32::MAX));
            assert_eq!(from::<u32>("4294967295"), Ok(u32::MAX));
            assert_eq!(from::<i64>("-9223372036854775808"), Ok(i64::MIN));
            assert_eq!(from::<u64>("18446744073709551615"), Ok(u64::MAX));
            fails::<u64>("18446744073709551616", "out of range for u64");
            assert_eq!(from::<u128>(&u128::MAX.to_string()), Ok(u128::MAX));
            fails::<u128>("340282366920938463463374607431768211456", "out of range for u128");
            assert_eq!(from::<i128>(&i128::MIN.to_string()), Ok(i128::MIN));
            assert_eq!(from::<i128>(&i128::MAX.to_string()), Ok(i128::MAX));
            fails::<i128>("170141183460469231731687303715884105728", "out of range for i128");
            assert_eq!(from::<isize>("-5"), Ok(-5));
            assert_eq!(from::<usize>("5"), Ok(5));
            fails::<i32>("1.0", "expected an integer (i32), got 1.0");
            fails::<i32>("1e2", "expected an integer");
            fails::<u64>("\"5\"", "expected u64, got string \"5\"");
            fails::<i64>("null", "expected i64, got null");
            fails::<i64>("[1]", "expected i64, got an array of length 1");
        }

        #[test]
        fn floats_decode_numbers_and_the_three_non_finite_strings() {
            assert_eq!(from::<f64>("1.5"), Ok(1.5));
            assert_eq!(from::<f64>("-2e3"), Ok(-2000.0));
            assert_eq!(from::<f64>("3"), Ok(3.0));
            assert_eq!(from::<f64>("-0.0").map(|x| x.is_sign_negative()), Ok(true));
            assert!(from::<f64>("\"NaN\"").unwrap().is_nan());
            assert_eq!(from::<f64>("\"inf\""), Ok(f64::INFINITY));
            assert_eq!(from::<f64>("\"-inf\""), Ok(f64::NEG_INFINITY));
            assert_eq!(from::<f64>("1.7976931348623157e308"), Ok(f64::MAX));
            assert_eq!(from::<f32>("0.1"), Ok(0.1f32));
            assert!(from::<f32>("\"NaN\"").unwrap().is_nan());
            assert_eq!(from::<f32>("\"-inf\""), Ok(f32::NEG_INFINITY));
            fails::<f64>("\"nan\"", "expected f64");
            fails::<f32>("true", "expected f32");
        }

        #[test]
        fn bools_chars_strings_and_unit() {
            assert_eq!(from::<bool>("true"), Ok(true));
            fails::<bool>("1", "expected bool, got 1");
            assert_eq!(from::<char>("\"x\""), Ok('x'));
            assert_eq!(from::<char>("\"é\""), Ok('é'));
            assert_eq!(from::<char>(r#""\ud83d\ude00""#), Ok('😀'));
            assert_eq!(from::<char>(r#""\u0000""#), Ok('\0'));
            fails::<char>("\"ab\"", "one-character string");
            fails::<char>("\"\"", "one-character string");
            fails::<char>("65", "one-character string");
            assert_eq!(from::<String>(r#""a\"b""#), Ok("a\"b".to_string()));
            fails::<String>("null", "expected a string");
            assert_eq!(from::<()>("null"), Ok(()));
            assert_eq!(from::<()>("[]"), Ok(()));
            fails::<()>("[1]", "null or []");
        }

        #[test]
        fn sequences_options_and_boxes() {
            assert_eq!(from::<Vec<i32>>("[1,-2,3]"), Ok(vec![1, -2, 3]));
            assert_eq!(from::<Vec<String>>("[]"), Ok(vec![]));
            assert_eq!(from::<Vec<Vec<u8>>>("[[1],[]]"), Ok(vec![vec![1], vec![]]));
            fails::<Vec<Vec<u8>>>("[[1],[2,300]]", "item 1: item 1: 300 is out of range for u8");
            fails::<Vec<u8>>("{}", "expected an array, got an object");
            assert_eq!(from::<Option<i32>>("null"), Ok(None));
            assert_eq!(from::<Option<i32>>("5"), Ok(Some(5)));
            fails::<Option<i32>>("\"5\"", "expected i32");
            assert_eq!(from::<Vec<Option<char>>>("[null,\"z\"]"), Ok(vec![None, Some('z')]));
            assert_eq!(from::<Box<i64>>("7"), Ok(Box::new(7)));
            assert_eq!(from::<Option<Box<Vec<bool>>>>("[true]"), Ok(Some(Box::new(vec![true]))));
        }

        #[test]
        fn tuples_of_every_arity_need_the_exact_length() {
            assert_eq!(from::<(i32,)>("[1]"), Ok((1,)));
            assert_eq!(from::<(i32, String)>("[1,\"a\"]"), Ok((1, "a".to_string())));
            assert_eq!(from::<(u8, u8, u8)>("[1,2,3]"), Ok((1, 2, 3)));
            assert_eq!(from::<(u8, u8, u8, u8)>("[1,2,3,4]"), Ok((1, 2, 3, 4)));
            assert_eq!(from::<(u8, u8, u8, u8, u8)>("[1,2,3,4,5]"), Ok((1, 2, 3, 4, 5)));
            assert_eq!(from::<(u8, u8, u8, u8, u8, u8)>("[1,2,3,4,5,6]"), Ok((1, 2, 3, 4, 5, 6)));
            assert_eq!(
                from::<(u8, u8, u8, u8, u8, u8, u8)>("[1,2,3,4,5,6,7]"),
                Ok((1, 2, 3, 4, 5, 6, 7))
            );
            assert_eq!(
                from::<(bool, char, String, i8, u128, f64, Option<u8>, (i32, i32))>(
                    r#"[true,"c","s",-1,340282366920938463463374607431768211455,"inf",null,[4,5]]"#
                ),
                Ok((true, 'c', "s".to_string(), -1, u128::MAX, f64::INFINITY, None, (4, 5)))
            );
            fails::<(i32, i32)>("[1]", "expected a tuple of 2 items, got 1");
            fails::<(i32, i32)>("[1,2,3]", "expected a tuple of 2 items, got 3");
            fails::<(i32, u8)>("[1,-1]", "item 1: -1 is out of range for u8");
            fails::<(i32,)>("1", "expected an array (tuple)");
        }

        #[test]
        fn fixed_arrays_need_the_exact_length() {
            assert_eq!(from::<[u8; 3]>("[1,2,3]"), Ok([1, 2, 3]));
            assert_eq!(from::<[String; 0]>("[]"), Ok([]));
            assert_eq!(from::<[[i8; 2]; 2]>("[[1,2],[-3,-4]]"), Ok([[1, 2], [-3, -4]]));
            fails::<[u8; 3]>("[1,2]", "expected an array of length 3, got length 2");
            fails::<[u8; 3]>("[1,2,3,4]", "expected an array of length 3, got length 4");
            fails::<[u8; 2]>("[1,256]", "item 1: 256 is out of range");
            fails::<[u8; 2]>("null", "expected an array");
        }

        #[test]
        fn arg_decodes_one_argument_and_names_it_in_errors() {
            let args = match parse(r#"[5, "x", [1,2]]"#) {
                Json::Arr(a) => a,
                _ => unreachable!(),
            };
            assert_eq!(arg::<i64>(&args, 0), Ok(5));
            assert_eq!(arg::<String>(&args, 1), Ok("x".to_string()));
            assert_eq!(arg::<Vec<u8>>(&args, 2), Ok(vec![1, 2]));
            assert_eq!(
                arg::<u8>(&args, 1),
                Err("argument 1: expected u8, got string \"x\"".into())
            );
            assert_eq!(arg::<u8>(&args, 3), Err("missing argument 3 (got 3)".to_string()));
        }

        // ---- outcomes and the response encoding ----

        #[derive(Debug)]
        struct MyError {
            code: u32,
        }

        type IntResult<T> = Result<T, std::num::ParseIntError>;

        #[test]
        fn ok_renders_with_debug() {
            assert_eq!(ok(&5i64), Outcome::Ok("5".into()));
            assert_eq!(ok("s"), Outcome::Ok("\"s\"".into()));
            assert_eq!(ok(&vec![Some(1), None]), Outcome::Ok("[Some(1), None]".into()));
            assert_eq!(ok(&()), Outcome::Ok("()".into()));
        }

        #[test]
        fn result_reports_the_error_type_name_through_aliases() {
            assert_eq!(result::<u8, MyError>(Ok(3)), Outcome::Ok("3".into()));
            match result::<u8, MyError>(Err(MyError { code: 7 })) {
                Outcome::Err(ty, msg) => {
                    assert!(ty.ends_with("MyError"), "{ty}");
                    assert_eq!(msg, "MyError { code: 7 }");
                }
                other => panic!("{other:?}"),
            }
            let r: IntResult<i32> = "x1".parse::<i32>();
            assert_eq!(
                result(r),
                Outcome::Err(
                    "core::num::error::ParseIntError".into(),
                    "ParseIntError { kind: InvalidDigit }".into()
                )
            );
            let r: io::Result<()> = Err(io::Error::new(io::ErrorKind::Other, "disk"));
            match result(r) {
                Outcome::Err(ty, msg) => {
                    assert_eq!(ty, "std::io::error::Error");
                    assert!(msg.contains("disk"), "{msg}");
                }
                other => panic!("{other:?}"),
            }
            assert_eq!(
                result::<(), String>(Err("no".into())),
                Outcome::Err("alloc::string::String".into(), "\"no\"".into())
            );
        }

        #[test]
        fn encodes_each_outcome_as_one_json_line() {
            assert_eq!(encode(&Outcome::Ok("5".into())), r#"{"ok":"5"}"#);
            assert_eq!(
                encode(&Outcome::Err("my::E".into(), "E(\"x\")".into())),
                r#"{"err":["my::E","E(\"x\")"]}"#
            );
            assert_eq!(encode(&Outcome::Panic("boom".into())), r#"{"panic":"boom"}"#);
            assert_eq!(encode(&Outcome::Bad("no".into())), r#"{"bad":"no"}"#);
            let nasty = "q\" b\\ n\n r\r t\t nul\u{0} esc\u{1b} us\u{1f} del\u{7f} é😀";
            let line = encode(&Outcome::Ok(nasty.into()));
            assert_eq!(
                line,
                "{\"ok\":\"q\\\" b\\\\ n\\n r\\r t\\t nul\\u0000 esc\\u001b us\\u001f del\u{7f} é😀\"}"
            );
            assert!(!line.contains('\n'));
            assert_eq!(parse(&line), Json::Obj(vec![("ok".into(), s(nasty))]));
            let line = encode(&Outcome::Err("a\u{2}".into(), "".into()));
            assert_eq!(
                parse(&line),
                Json::Obj(vec![("err".into(), Json::Arr(vec![s("a\u{2}"), s("")]))])
            );
        }

        // ---- the worker loop ----

        fn dispatch(id: usize, args: &[Json]) -> Outcome {
            match id {
                0 => match arg::<i64>(args, 0) {
                    Ok(x) => ok(&(x + 1)),
                    Err(e) => Outcome::Bad(e),
                },
                1 => match arg::<String>(args, 0) {
                    Ok(t) => result(t.parse::<i32>()),
                    Err(e) => Outcome::Bad(e),
                },
                2 => panic!("boom {}", args.len()),
                3 => panic!("static boom"),
                4 => std::panic::panic_any(42u8),
                5 => {
                    std::thread::sleep(std::time::Duration::from_millis(30));
                    ok("slept")
                }
                _ => Outcome::Bad(format!("unknown target {id}")),
            }
        }

        fn run(input: &[u8], timeout_ms: u64, flush_each: bool) -> Vec<String> {
            let out = serve_with(input, Vec::new(), dispatch, timeout_ms, flush_each);
            let text = String::from_utf8(out).unwrap();
            assert!(text.ends_with('\n'), "{text:?}");
            text.lines()
                .map(|l| {
                    l.strip_prefix("@abex@").unwrap_or_else(|| panic!("unmarked {l:?}")).to_string()
                })
                .collect()
        }

        /// Removes the line markers from written output.
        fn unmark(s: &str) -> String {
            s.replace("@abex@", "")
        }

        #[test]
        fn serves_ok_err_panic_and_bad_in_order() {
            let input = concat!(
                "[0,[41]]\n",
                "[1,[\"12\"]]\n",
                "[1,[\"x\"]]\n",
                "[2,[1,2]]\n",
                " [ 3 , [ ] ] \r\n",
                "[4,[]]\n",
                "not json\n",
                "[0]\n",
                "[\"0\",[1]]\n",
                "[0,[1],2]\n",
                "[0,[\"str\"]]\n",
                "[0,[]]\n",
                "[9,[]]\n",
                "[0,[-1]]\n",
            );
            let got = run(input.as_bytes(), 0, false);
            let want = [
                r#"{"abex_harness":1}"#,
                r#"{"ok":"42"}"#,
                r#"{"ok":"12"}"#,
                r#"{"err":["core::num::error::ParseIntError","ParseIntError { kind: InvalidDigit }"]}"#,
                r#"{"panic":"boom 2"}"#,
                r#"{"panic":"static boom"}"#,
                r#"{"panic":"Box<dyn Any>"}"#,
                r#"{"bad":"invalid JSON: invalid literal at byte 0"}"#,
                r#"{"bad":"a request is [target_id, [args...]]"}"#,
                r#"{"bad":"a request is [target_id, [args...]]"}"#,
                r#"{"bad":"a request is [target_id, [args...]]"}"#,
                r#"{"bad":"argument 0: expected i64, got string \"str\""}"#,
                r#"{"bad":"missing argument 0 (got 0)"}"#,
                r#"{"bad":"unknown target 9"}"#,
                r#"{"ok":"0"}"#,
            ];
            assert_eq!(got, want);
        }

        #[test]
        fn stops_at_an_empty_line_or_eof_and_survives_bad_bytes() {
            let got = run(b"[0,[1]]\n\n[0,[2]]\n", 0, false);
            assert_eq!(got, [r#"{"abex_harness":1}"#, r#"{"ok":"2"}"#]);
            let got = run(b"[0,[1]]\n  \r\n[0,[2]]\n", 0, false);
            assert_eq!(got.len(), 2);
            let got = run(b"[0,[1]]\n[0,[2]]", 0, false);
            assert_eq!(got, [r#"{"abex_harness":1}"#, r#"{"ok":"2"}"#, r#"{"ok":"3"}"#]);
            let got = run(b"", 0, false);
            assert_eq!(got, [r#"{"abex_harness":1}"#]);
            let got = run(b"[0,[\"\xff\"]]\n[0,[5]]\n", 0, false);
            assert_eq!(got[1], r#"{"bad":"the request is not valid UTF-8"}"#);
            assert_eq!(got[2], r#"{"ok":"6"}"#);
        }

        #[test]
        fn the_watchdog_leaves_calls_under_the_limit_alone() {
            let input = "[5,[]]\n".repeat(3) + "[0,[1]]\n";
            let got = run(input.as_bytes(), 10_000, false);
            assert_eq!(got.len(), 5);
            assert_eq!(got[1], r#"{"ok":"\"slept\""}"#);
            assert_eq!(got[4], r#"{"ok":"2"}"#);
        }

        // Records what reaches the writer at each flush.
        #[derive(Default)]
        struct Flushes {
            pending: Vec<u8>,
            chunks: Vec<String>,
        }

        impl Write for Flushes {
            fn write(&mut self, b: &[u8]) -> io::Result<usize> {
                self.pending.extend_from_slice(b);
                Ok(b.len())
            }
            fn flush(&mut self) -> io::Result<()> {
                if !self.pending.is_empty() {
                    let chunk = String::from_utf8(std::mem::take(&mut self.pending)).unwrap();
                    self.chunks.push(chunk);
                }
                Ok(())
            }
        }

        // Hands out the input a fixed number of bytes per read, like a pipe.
        struct Trickle<'a>(&'a [u8], usize);

        impl Read for Trickle<'_> {
            fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
                let n = self.1.min(buf.len()).min(self.0.len());
                buf[..n].copy_from_slice(&self.0[..n]);
                self.0 = &self.0[n..];
                Ok(n)
            }
        }

        #[test]
        fn a_batch_that_arrives_at_once_is_written_at_once() {
            let input = "[0,[1]]\n".repeat(1000);
            let out = serve_with(input.as_bytes(), Flushes::default(), dispatch, 0, false);
            assert_eq!(out.chunks.len(), 2, "{:?}", &out.chunks[..3.min(out.chunks.len())]);
            assert_eq!(unmark(&out.chunks[0]), "{\"abex_harness\":1}\n");
            assert_eq!(out.chunks[1], "@abex@{\"ok\":\"2\"}\n".repeat(1000));
        }

        #[test]
        fn responses_are_written_whenever_the_input_runs_dry() {
            let input = "[0,[1]]\n[0,[2]]\n[0,[3]]\n";
            let out =
                serve_with(Trickle(input.as_bytes(), 8), Flushes::default(), dispatch, 0, false);
            assert_eq!(out.chunks.len(), 4);
            assert_eq!(unmark(&out.chunks[3]), "{\"ok\":\"4\"}\n");
            // A line split across reads is still one request.
            let out =
                serve_with(Trickle(input.as_bytes(), 5), Flushes::default(), dispatch, 0, false);
            assert_eq!(out.chunks.concat().lines().count(), 4);
        }

        #[test]
        fn flush_each_writes_every_response_by_itself() {
            let input = "[0,[1]]\n[3,[]]\n[0,[3]]\n";
            let out = serve_with(input.as_bytes(), Flushes::default(), dispatch, 0, true);
            assert_eq!(
                out.chunks.iter().map(|c| unmark(c)).collect::<Vec<_>>(),
                [
                    "{\"abex_harness\":1}\n",
                    "{\"ok\":\"2\"}\n",
                    "{\"panic\":\"static boom\"}\n",
                    "{\"ok\":\"4\"}\n"
                ]
            );
        }

        #[test]
        fn a_failing_writer_ends_the_loop() {
            struct Broken;
            impl Write for Broken {
                fn write(&mut self, _: &[u8]) -> io::Result<usize> {
                    Err(io::Error::new(io::ErrorKind::BrokenPipe, "gone"))
                }
                fn flush(&mut self) -> io::Result<()> {
                    Ok(())
                }
            }
            serve_with(&b"[0,[1]]\n"[..], Broken, dispatch, 100, false);
        }
    }
}
