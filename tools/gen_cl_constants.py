#!/usr/bin/env python3
"""Writes runtime/src/cl.rs: the OpenCL API's enum values from cl.xml.

Run from the repository root: python3 tools/gen_cl_constants.py ../shared/spec/cl.xml
Error codes are cl_int, bit-field groups cl_bitfield (u64), the rest cl_uint.
"""
import sys
import xml.etree.ElementTree as ET

root = ET.parse(sys.argv[1]).getroot()
seen = set()
out = [
    "//! OpenCL API types and enum values, generated from the registry's cl.xml",
    "//! by tools/gen_cl_constants.py. Do not edit by hand.",
    "#![allow(non_camel_case_types, non_upper_case_globals, dead_code, clippy::all)]",
    "",
    "pub type cl_char = i8;",
    "pub type cl_uchar = u8;",
    "pub type cl_short = i16;",
    "pub type cl_ushort = u16;",
    "pub type cl_int = i32;",
    "pub type cl_uint = u32;",
    "pub type cl_long = i64;",
    "pub type cl_ulong = u64;",
    "pub type cl_half = u16;",
    "pub type cl_float = f32;",
    "pub type cl_double = f64;",
    "pub type cl_bool = cl_uint;",
    "pub type cl_bitfield = cl_ulong;",
    "pub type cl_properties = cl_ulong;",
    "",
]
for enums in root.iter("enums"):
    group = enums.get("name", "")
    if group.startswith("Constants") or group == "MiscNumbers":
        continue
    if "intel" in group or "altera" in group or "arm" in group or "img" in group:
        continue
    members = list(enums.iter("enum"))
    bitfield = any(e.get("bitpos") is not None for e in members)
    if group.startswith("ErrorCodes"):
        ty = "cl_int"
    elif bitfield:
        ty = "cl_bitfield"
    else:
        ty = "cl_uint"
    for e in members:
        name = e.get("name")
        if name in seen or not name.startswith("CL_"):
            continue
        if any(v in name for v in ("_INTEL", "_ALTERA", "_ARM", "_IMG", "_QCOM", "_APPLE", "_AMD", "_NV", "_POCL", "_IBM")):
            continue
        if e.get("bitpos") is not None:
            value = f"1 << {e.get('bitpos')}"
        else:
            value = e.get("value")
            if value is None:
                continue
            value = value.strip("()")
            if value.startswith("(cl_") or ")" in value:
                value = value.split(")")[-1]
            if ty != "cl_int" and value.startswith("-"):
                continue
        seen.add(name)
        out.append(f"pub const {name}: {ty} = {value};")
open("runtime/src/cl.rs", "w").write("\n".join(out) + "\n")
print(len(seen), "constants")
