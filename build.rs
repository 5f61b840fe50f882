//! Embeds the demo history (assets/demo), the rule pages (assets/rules) and the `.proto`
//! files of the rule fixtures (tests/fixtures/rules) in the binary, so `--demo` and
//! `explain` (which checks each rule's fixture pair at run time) work from anywhere; the
//! third-party protos of assets/thirdparty; and where the vendored protoc is.
use std::fmt::Write;
use std::path::Path;

fn collect(dir: &Path, base: &Path, ext: Option<&str>, out: &mut Vec<(String, String)>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<_> = entries.flatten().collect();
    entries.sort_by_key(|e| e.path());
    for e in entries {
        let p = e.path();
        if p.is_dir() {
            collect(&p, base, ext, out);
        } else if ext.is_some_and(|x| p.extension().is_none_or(|e| e != x)) {
            continue;
        } else if let Ok(rel) = p.strip_prefix(base) {
            let rel = rel.to_string_lossy().replace('\\', "/");
            out.push((
                rel,
                p.canonicalize()
                    .unwrap_or(p.clone())
                    .to_string_lossy()
                    .into_owned(),
            ));
        }
    }
}

/// Writes `static NAME: &[(&str, &str)]` with every file below `dir` (relative path, text),
/// or only those whose extension is `ext`.
fn embed(dir: &str, name: &str, file: &str, ext: Option<&str>) {
    let base = Path::new(dir);
    println!("cargo:rerun-if-changed={dir}");
    let mut files = Vec::new();
    collect(base, base, ext, &mut files);
    let mut code = format!("pub static {name}: &[(&str, &str)] = &[\n");
    for (rel, abs) in &files {
        let _ = writeln!(code, "    ({rel:?}, include_str!({abs:?})),");
    }
    code.push_str("];\n");
    let out = std::env::var("OUT_DIR").unwrap_or_else(|_| ".".into());
    std::fs::write(Path::new(&out).join(file), code)
        .unwrap_or_else(|e| panic!("writing {file}: {e}"));
}

fn main() {
    embed("assets/demo", "DEMO_FILES", "demo_files.rs", None);
    embed("assets/rules", "RULE_PAGES", "rule_pages.rs", None);
    embed(
        "tests/fixtures/rules",
        "RULE_FIXTURES",
        "rule_fixtures.rs",
        Some("proto"),
    );
    embed(
        "assets/thirdparty",
        "THIRDPARTY_FILES",
        "thirdparty_files.rs",
        Some("proto"),
    );
    vendored_protoc();
}

/// Where the `protoc-bin-vendored` crate keeps Google's protoc and its includes for this
/// platform, as compile-time environment variables (empty when the platform has none). The
/// binary checks the paths exist before using them: a cleaned cargo registry leaves them
/// dangling, and then `PROTOC` is the way (the crate's own functions assert instead).
fn vendored_protoc() {
    let bin = protoc_bin_vendored::protoc_bin_path()
        .map(|p| p.display().to_string())
        .unwrap_or_default();
    let include = protoc_bin_vendored::include_path()
        .map(|p| p.display().to_string())
        .unwrap_or_default();
    println!("cargo:rustc-env=PROTOLAPSE_VENDORED_PROTOC={bin}");
    println!("cargo:rustc-env=PROTOLAPSE_VENDORED_PROTOC_INCLUDE={include}");
}
