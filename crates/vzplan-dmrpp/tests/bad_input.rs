//! Corrupt copies of the DMR++ fixtures: truncations, byte flips, hostile numbers and names. The
//! reader never panics; a whole-file failure names the URL; a bad variable is a problem of its own.

mod common;

use vzplan_io::MemObject;

const URL: &str = "file:///data/x.h5.dmrpp";

fn fixtures() -> Vec<Vec<u8>> {
    ["sds.h5.dmrpp", "grid.nc.dmrpp"]
        .iter()
        .map(|n| std::fs::read(common::dir().join(n)).unwrap())
        .collect()
}

fn read(bytes: Vec<u8>) -> Result<vzplan_core::SourceLayout, vzplan_dmrpp::Error> {
    vzplan_dmrpp::read_layout(&MemObject::new(URL, bytes), None)
}

#[test]
fn truncations_never_panic() {
    for b in fixtures() {
        for cut in (0..b.len()).step_by(7) {
            if let Err(e) = read(b[..cut].to_vec()) {
                assert!(e.to_string().starts_with(URL), "{e}");
            }
        }
    }
}

#[test]
fn byte_flips_never_panic() {
    for b in fixtures() {
        for at in (0..b.len()).step_by(3) {
            for x in [0x01u8, 0x20, 0x80, 0xff] {
                let mut c = b.clone();
                c[at] ^= x;
                let _ = read(c);
            }
        }
    }
}

fn doc(var: &str) -> Vec<u8> {
    format!(
        r#"<?xml version="1.0"?>
<Dataset xmlns="http://xml.opendap.org/ns/DAP/4.0#" xmlns:dmrpp="http://xml.opendap.org/dap/dmrpp/1.0.0#" name="x.h5" dmrpp:href="x.h5" dmrpp:version="3.21.1">
{var}
</Dataset>"#
    )
    .into_bytes()
}

fn problem(var: &str) -> String {
    let l = read(doc(var)).unwrap();
    assert!(l.arrays.is_empty(), "{:?}", l.arrays);
    l.problems
        .iter()
        .map(|p| p.reason.clone())
        .collect::<Vec<_>>()
        .join("; ")
}

#[test]
fn hostile_variables_are_problems() {
    let chunked = |sizes: &str, pos: &str| {
        format!(
            r#"<Int32 name="v"><Dim size="4"/><dmrpp:chunks><dmrpp:chunkDimensionSizes>{sizes}</dmrpp:chunkDimensionSizes>
<dmrpp:chunk offset="1" nBytes="2" chunkPositionInArray="{pos}"/></dmrpp:chunks></Int32>"#
        )
    };
    assert!(problem(&chunked("0", "[0]")).contains("chunkDimensionSizes"));
    assert!(problem(&chunked("2", "[1]")).contains("multiple"));
    assert!(problem(&chunked("2", "[0,0]")).contains("multiple"));
    assert!(problem(&chunked("99999999999999999999", "[0]")).contains("chunkDimensionSizes"));
    let huge = r#"<Int32 name="v"><Dim size="18446744073709551615"/><Dim size="18446744073709551615"/><dmrpp:chunks/></Int32>"#;
    assert!(problem(huge).contains("overflows"));
    let filter = r#"<Int32 name="v"><Dim size="4"/><dmrpp:chunks compressionType="szip"><dmrpp:chunk offset="1" nBytes="2"/></dmrpp:chunks></Int32>"#;
    assert!(problem(filter).contains("szip"));
    let fill = r#"<Int8 name="v"><Dim size="4"/><dmrpp:chunks fillValue="300"/></Int8>"#;
    assert!(problem(fill).contains("fill value"));
    let dim = r#"<Int8 name="v"><Dim name="/nowhere"/><dmrpp:chunks/></Int8>"#;
    assert!(problem(dim).contains("no declared dimension"));
    let none = r#"<Int8 name="v"><Dim size="4"/></Int8>"#;
    assert!(problem(none).contains("no dmrpp:chunks"));
    let other = r#"<Int8 name="v"><Dim size="4"/><dmrpp:vlsa/></Int8>"#;
    assert!(problem(other).contains("vlsa"));
    let structure = r#"<Structure name="v"><Int8 name="a"/></Structure>"#;
    assert!(problem(structure).contains("Structure"));
    let twice = r#"<Int8 name="v"><Dim size="4"/><dmrpp:chunks><dmrpp:chunkDimensionSizes>2</dmrpp:chunkDimensionSizes>
<dmrpp:chunk offset="1" nBytes="2" chunkPositionInArray="[0]"/><dmrpp:chunk offset="3" nBytes="2" chunkPositionInArray="[0]"/></dmrpp:chunks></Int8>"#;
    assert!(problem(twice).contains("twice"));
    let compact = r#"<Int32 name="v"><Dim size="4"/><dmrpp:chunks/><dmrpp:compact>AAAA</dmrpp:compact></Int32>"#;
    assert!(problem(compact).contains("compact"));
}

#[test]
fn deep_groups_and_big_documents_are_bounded() {
    let deep = "<Group name=\"g\">".repeat(200) + &"</Group>".repeat(200);
    let l = read(doc(&deep)).unwrap();
    assert!(l.problems.iter().any(|p| p.reason.contains("too deep")));
    // Entities are refused (no DTD), so no expansion bomb.
    let bomb = br#"<?xml version="1.0"?><!DOCTYPE d [<!ENTITY a "aaaa">]><Dataset/>"#;
    assert!(read(bomb.to_vec()).is_err());
    let e = read(b"<Dataset xmlns=\"urn:other\"/>".to_vec()).unwrap_err();
    assert!(e.to_string().contains("not a DMR++"), "{e}");
}

#[test]
fn a_remote_dmrpp_names_no_local_file() {
    let bytes = String::from_utf8(doc(""))
        .unwrap()
        .replace("dmrpp:href=\"x.h5\"", "dmrpp:href=\"/etc/passwd\"");
    let r = MemObject::new("https://h.example/x.h5.dmrpp", bytes.into_bytes());
    let e = vzplan_dmrpp::read_layout(&r, None).unwrap_err();
    assert!(e.to_string().contains("not a local file"), "{e}");
}
