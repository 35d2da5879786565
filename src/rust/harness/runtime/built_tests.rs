// Unit tests of the runtime's built values (`runtime/built.rs`), included after `runtime/core.rs` as
// the generated harness includes them.

#[allow(warnings, clippy::all)]
mod rt {
    include!("core.rs");
    include!("probe.rs");
    include!("built.rs");

    #[cfg(test)]
    mod tests {
        use super::*;
        use crate::rust::types::std as std_types;
        use std::collections::{BTreeMap, HashSet};

        fn recipe(ctor: &str, args: &str) -> Json {
            Json::parse(&format!("{{\"$ctor\": {ctor:?}, \"$args\": {args}}}")).unwrap()
        }

        fn args_for(params: &[(&str, std_types::StdParam)]) -> String {
            let xs: Vec<&str> = params
                .iter()
                .map(|(_, p)| match p {
                    std_types::StdParam::Str => "\"a/b\"",
                    _ => "1",
                })
                .collect();
            format!("[{}]", xs.join(","))
        }

        #[test]
        fn every_std_constructor_abex_generates_is_decoded() {
            for k in std_types::DURATION {
                let d = ::std::time::Duration::from_json(&recipe(k.name, &args_for(k.params)));
                assert!(d.is_ok(), "{}: {d:?}", k.name);
            }
            for k in std_types::SYSTEM_TIME {
                let t = ::std::time::SystemTime::from_json(&recipe(k.name, &args_for(k.params)));
                assert!(t.is_ok(), "{}: {t:?}", k.name);
            }
            for k in std_types::PATH_BUF {
                assert!(::std::path::PathBuf::from_json(&recipe(k.name, "[\"a/b\"]")).is_ok());
            }
            for k in std_types::OS_STRING {
                assert!(::std::ffi::OsString::from_json(&recipe(k.name, "[\"a\"]")).is_ok());
            }
            for k in std_types::ORDERING {
                assert!(::std::cmp::Ordering::from_json(&recipe(k.name, "[]")).is_ok());
            }
            let net = |k: &std_types::StdCtor| recipe(k.name, &args_for(k.params));
            for k in std_types::IPV4 {
                assert_eq!(
                    ::std::net::Ipv4Addr::from_json(&net(k)).unwrap().to_string(),
                    "1.1.1.1"
                );
            }
            for k in std_types::IPV6 {
                assert!(::std::net::Ipv6Addr::from_json(&net(k)).is_ok(), "{}", k.name);
            }
            for k in std_types::IP {
                assert!(::std::net::IpAddr::from_json(&net(k)).is_ok(), "{}", k.name);
            }
            for k in std_types::SOCKET_V4 {
                let s = ::std::net::SocketAddrV4::from_json(&net(k)).unwrap();
                assert_eq!(s.to_string(), "1.1.1.1:1");
            }
            for k in std_types::SOCKET_V6 {
                assert!(::std::net::SocketAddrV6::from_json(&net(k)).is_ok(), "{}", k.name);
            }
            for k in std_types::SOCKET {
                let s = ::std::net::SocketAddr::from_json(&net(k)).unwrap();
                assert_eq!(s.port(), 1, "{}", k.name);
                assert!(std_types::ctor_code(k.name).is_some(), "{}", k.name);
            }
            let n = ::std::num::NonZeroU32::from_json(&recipe("NonZeroU32::new", "[7]"));
            assert_eq!(n.unwrap().get(), 7);
            for (name, _) in std_types::NON_ZERO {
                let (code, fallible) = std_types::ctor_code(&format!("{name}::new")).unwrap();
                assert!(fallible && code.contains(name));
            }
        }

        #[test]
        fn a_constructor_that_fails_or_panics_means_could_not_build_and_a_bad_recipe_is_bad() {
            let zero = arg::<::std::num::NonZeroU8>(&[recipe("NonZeroU8::new", "[0]")], 0);
            match arg_failed(zero.unwrap_err()) {
                Outcome::Err(ty, message) => {
                    assert_eq!(ty, crate::value::COULD_NOT_BUILD);
                    assert_eq!(message, "argument 0: NonZeroU8::new: returned None");
                }
                other => panic!("{other:?}"),
            }
            let overflow = recipe("Duration::new", &format!("[{}, 1999999999]", u64::MAX));
            let e = ::std::time::Duration::from_json(&overflow).unwrap_err();
            assert!(matches!(arg_failed(e), Outcome::Err(..)));
            let unknown = ::std::time::Duration::from_json(&recipe("Duration::from_days", "[1]"));
            assert!(matches!(arg_failed(unknown.unwrap_err()), Outcome::Bad(_)));
            let not_a_recipe = ::std::time::Duration::from_json(&Json::parse("5").unwrap());
            assert!(not_a_recipe.unwrap_err().contains("a recipe for Duration"));
        }

        #[test]
        fn std_containers_decode_from_their_plain_shapes() {
            let set = HashSet::<u8>::from_json(&Json::parse("[1,2,2]").unwrap()).unwrap();
            assert_eq!(set.len(), 2);
            let map = BTreeMap::<String, bool>::from_json(&Json::parse("[[\"k\",true]]").unwrap())
                .unwrap();
            assert_eq!(map["k"], true);
            let rc = ::std::rc::Rc::<str>::from_json(&Json::parse("\"x\"").unwrap()).unwrap();
            assert_eq!(&*rc, "x");
            let cow = ::std::borrow::Cow::<'static, str>::from_json(&Json::parse("\"y\"").unwrap());
            assert_eq!(cow.unwrap(), "y");
            let chars = ::std::str::Chars::from_json(&Json::parse("\"ab\"").unwrap()).unwrap();
            assert_eq!(chars.count(), 2);
        }

        struct Both;
        impl ::std::fmt::Debug for Both {
            fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                f.write_str("debug")
            }
        }
        impl ::std::fmt::Display for Both {
            fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                f.write_str("display")
            }
        }
        struct OnlyDisplay;
        impl ::std::fmt::Display for OnlyDisplay {
            fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                f.write_str("shown")
            }
        }
        struct Neither;

        #[test]
        fn values_render_with_debug_then_display_then_their_type() {
            use super::{RenderDebug as _, RenderDisplay as _, RenderOpaque as _};
            assert_eq!((&&&Render(&Both)).abex_render(), "debug");
            assert_eq!((&&&Render(&OnlyDisplay)).abex_render(), "shown");
            assert!((&&&Render(&Neither)).abex_render().ends_with("Neither>"));
            use super::{DescribeAny as _, DescribeDebug as _};
            assert_eq!((&&Describe(&Both)).describe(), "debug");
            assert!((&&Describe(&Neither)).describe().contains("Neither"));
        }

        #[test]
        fn formatting_traits_are_driven_with_the_formatters_flags() {
            assert_eq!(display(&1.5f64, false, Some(6), Some(2)), "  1.50");
            assert_eq!(debug(&"a", false, None, None), "\"a\"");
            assert_eq!(lower_hex(&255u8, true, None, None), "0xff");
            assert_eq!(display(&"abc", false, None, Some(1)), "a");
        }
    }
}
