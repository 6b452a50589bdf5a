//! Build options: the string given to `clBuildProgram` / `clCompileProgram`
//! (section "Compiler Options" of the OpenCL API specification), and the
//! link options of `clLinkProgram` that may also reach a compile.

/// The OpenCL C version a program is compiled as (`-cl-std=`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord)]
pub enum ClStd {
    Cl1_0,
    Cl1_1,
    /// The default when no `-cl-std` is given (OpenCL 3.0 devices: 1.2).
    #[default]
    Cl1_2,
    Cl2_0,
    Cl3_0,
}

impl ClStd {
    /// The value of `__OPENCL_C_VERSION__` for this version.
    pub fn version_number(self) -> u32 {
        match self {
            ClStd::Cl1_0 => 100,
            ClStd::Cl1_1 => 110,
            ClStd::Cl1_2 => 120,
            ClStd::Cl2_0 => 200,
            ClStd::Cl3_0 => 300,
        }
    }
}

/// Parsed build options.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct BuildOptions {
    /// `-D name` / `-D name=value` / `-Dname=value`, in order. The name part
    /// may carry a parameter list (`-D 'f(x)=x'`), as with a `#define`.
    pub defines: Vec<(String, Option<String>)>,
    /// `-I dir` / `-Idir`.
    pub include_dirs: Vec<String>,
    pub cl_std: ClStd,
    /// `-cl-fast-relaxed-math` (implies the four below and `-cl-mad-enable`).
    pub fast_relaxed_math: bool,
    pub mad_enable: bool,
    pub no_signed_zeros: bool,
    pub unsafe_math_optimizations: bool,
    pub finite_math_only: bool,
    pub denorms_are_zero: bool,
    pub single_precision_constant: bool,
    pub fp32_correctly_rounded_divide_sqrt: bool,
    pub opt_disable: bool,
    pub kernel_arg_info: bool,
    /// `-w`
    pub suppress_warnings: bool,
    /// `-Werror`
    pub warnings_are_errors: bool,
    /// `-cl-uniform-work-group-size`: every global size is a multiple of the
    /// work-group size.
    pub uniform_work_group_size: bool,
    /// `-cl-no-subgroup-ifp`: no independent forward progress of sub-groups
    /// is required.
    pub no_subgroup_ifp: bool,
    /// `-g`.
    pub debug_info: bool,
    /// `-cl-strict-aliasing` (deprecated by OpenCL 1.1; accepted, no effect).
    pub strict_aliasing: bool,
    /// `-create-library` (a `clLinkProgram` option).
    pub create_library: bool,
    /// `-enable-link-options` (a `clLinkProgram` option, only with
    /// `-create-library`).
    pub enable_link_options: bool,
}

impl BuildOptions {
    /// Parses an options string; an unknown option is an error
    /// (`CL_INVALID_BUILD_OPTIONS`) with a message for the build log.
    pub fn parse(options: &str) -> Result<BuildOptions, String> {
        let words = split_words(options)?;
        let mut opts = BuildOptions::default();
        let mut i = 0;
        while i < words.len() {
            let word = words[i].as_str();
            i += 1;
            // `-D` and `-I` take their value attached or as the next word.
            if let Some(rest) = word.strip_prefix("-D") {
                let value = attached_or_next(rest, &words, &mut i, "-D")?;
                opts.defines.push(parse_define(&value)?);
                continue;
            }
            if let Some(rest) = word.strip_prefix("-I") {
                let dir = attached_or_next(rest, &words, &mut i, "-I")?;
                if dir.is_empty() {
                    return Err("empty directory given to '-I'".into());
                }
                opts.include_dirs.push(dir);
                continue;
            }
            if let Some(version) = word.strip_prefix("-cl-std=") {
                opts.cl_std = match version {
                    "CL1.0" | "cl1.0" => ClStd::Cl1_0,
                    "CL1.1" | "cl1.1" => ClStd::Cl1_1,
                    "CL1.2" | "cl1.2" => ClStd::Cl1_2,
                    "CL2.0" | "cl2.0" => ClStd::Cl2_0,
                    "CL3.0" | "cl3.0" => ClStd::Cl3_0,
                    other => {
                        return Err(format!(
                            "invalid value '{other}' in '-cl-std=': expected CL1.0, CL1.1, CL1.2, CL2.0 or CL3.0"
                        ))
                    }
                };
                continue;
            }
            match word {
                "-cl-single-precision-constant" => opts.single_precision_constant = true,
                "-cl-denorms-are-zero" => opts.denorms_are_zero = true,
                "-cl-fp32-correctly-rounded-divide-sqrt" => {
                    opts.fp32_correctly_rounded_divide_sqrt = true
                }
                "-cl-opt-disable" => opts.opt_disable = true,
                "-cl-mad-enable" => opts.mad_enable = true,
                "-cl-no-signed-zeros" => opts.no_signed_zeros = true,
                "-cl-unsafe-math-optimizations" => opts.set_unsafe_math(),
                "-cl-finite-math-only" => opts.finite_math_only = true,
                "-cl-fast-relaxed-math" => {
                    // Sets -cl-finite-math-only and -cl-unsafe-math-optimizations.
                    opts.fast_relaxed_math = true;
                    opts.finite_math_only = true;
                    opts.set_unsafe_math();
                }
                "-cl-uniform-work-group-size" => opts.uniform_work_group_size = true,
                "-cl-no-subgroup-ifp" => opts.no_subgroup_ifp = true,
                "-cl-strict-aliasing" => opts.strict_aliasing = true,
                "-cl-kernel-arg-info" => opts.kernel_arg_info = true,
                "-w" => opts.suppress_warnings = true,
                "-Werror" => opts.warnings_are_errors = true,
                "-g" => opts.debug_info = true,
                "-create-library" => opts.create_library = true,
                "-enable-link-options" => opts.enable_link_options = true,
                "-cl-std" => return Err("'-cl-std' needs a value: -cl-std=CL1.2 and so on".into()),
                other => return Err(format!("unrecognized build option '{other}'")),
            }
        }
        Ok(opts)
    }

    /// `-cl-unsafe-math-optimizations` includes `-cl-no-signed-zeros`,
    /// `-cl-mad-enable` and `-cl-denorms-are-zero`.
    fn set_unsafe_math(&mut self) {
        self.unsafe_math_optimizations = true;
        self.no_signed_zeros = true;
        self.mad_enable = true;
        self.denorms_are_zero = true;
    }
}

/// The value of `-D`/`-I`: the rest of the word, or the next word.
fn attached_or_next(
    rest: &str,
    words: &[String],
    i: &mut usize,
    option: &str,
) -> Result<String, String> {
    if !rest.is_empty() {
        return Ok(rest.to_string());
    }
    match words.get(*i) {
        Some(next) => {
            *i += 1;
            Ok(next.clone())
        }
        None => Err(format!("missing argument to '{option}'")),
    }
}

/// `name`, `name=definition` or `name(params)=definition`. The definition
/// is truncated at an embedded newline, as the specification says.
fn parse_define(text: &str) -> Result<(String, Option<String>), String> {
    let (name, value) = match text.split_once('=') {
        Some((name, value)) => {
            let value = value.split(['\n', '\r']).next().unwrap_or("");
            (name, Some(value.to_string()))
        }
        None => (text, None),
    };
    let ident_len = name
        .bytes()
        .take_while(|b| b.is_ascii_alphanumeric() || *b == b'_' || *b == b'$')
        .count();
    let (ident, params) = name.split_at(ident_len);
    let starts_well = ident
        .bytes()
        .next()
        .is_some_and(|b| b.is_ascii_alphabetic() || b == b'_' || b == b'$');
    let params_ok = params.is_empty()
        || (params.starts_with('(') && params.ends_with(')') && !params.contains('\n'));
    if !starts_well || !params_ok {
        return Err(format!("invalid macro name '{name}' given to '-D'"));
    }
    Ok((name.to_string(), value))
}

/// Splits the options string into words: whitespace separates, double or
/// single quotes group (so `-I "my dir"` names one directory), and a
/// backslash outside single quotes takes the next character literally.
fn split_words(options: &str) -> Result<Vec<String>, String> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut in_word = false;
    let mut chars = options.chars();
    while let Some(c) = chars.next() {
        match c {
            c if c.is_whitespace() => {
                if in_word {
                    words.push(std::mem::take(&mut word));
                    in_word = false;
                }
            }
            '"' => {
                in_word = true;
                loop {
                    match chars.next() {
                        Some('"') => break,
                        Some('\\') => match chars.next() {
                            Some(e @ ('"' | '\\')) => word.push(e),
                            Some(other) => {
                                word.push('\\');
                                word.push(other);
                            }
                            None => return Err("unterminated '\"' in build options".into()),
                        },
                        Some(other) => word.push(other),
                        None => return Err("unterminated '\"' in build options".into()),
                    }
                }
            }
            '\'' => {
                in_word = true;
                loop {
                    match chars.next() {
                        Some('\'') => break,
                        Some(other) => word.push(other),
                        None => return Err("unterminated \"'\" in build options".into()),
                    }
                }
            }
            '\\' => {
                in_word = true;
                match chars.next() {
                    Some(next) => word.push(next),
                    None => word.push('\\'),
                }
            }
            other => {
                in_word = true;
                word.push(other);
            }
        }
    }
    if in_word {
        words.push(word);
    }
    Ok(words)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn empty_options_are_the_defaults() {
        assert_eq!(BuildOptions::parse("").unwrap(), BuildOptions::default());
        assert_eq!(
            BuildOptions::parse("  \t\n ").unwrap(),
            BuildOptions::default()
        );
        assert_eq!(BuildOptions::default().cl_std, ClStd::Cl1_2);
    }

    #[test]
    fn defines_attached_separate_and_with_values() {
        let o = BuildOptions::parse("-D A -DB=2 -D C=x+y -D 'F(a,b)=a*b' -D \"S=hello world\"")
            .unwrap();
        assert_eq!(
            o.defines,
            vec![
                ("A".to_string(), None),
                ("B".to_string(), Some("2".to_string())),
                ("C".to_string(), Some("x+y".to_string())),
                ("F(a,b)".to_string(), Some("a*b".to_string())),
                ("S".to_string(), Some("hello world".to_string())),
            ]
        );
        let o = BuildOptions::parse("-D E=").unwrap();
        assert_eq!(o.defines, vec![("E".to_string(), Some(String::new()))]);
    }

    #[test]
    fn define_value_stops_at_newline() {
        let o = BuildOptions::parse("'-DX=1\n2'").unwrap();
        assert_eq!(o.defines, vec![("X".to_string(), Some("1".to_string()))]);
    }

    #[test]
    fn bad_defines_are_errors() {
        assert!(BuildOptions::parse("-D").is_err());
        assert!(BuildOptions::parse("-D =3").is_err());
        assert!(BuildOptions::parse("-D 3X").is_err());
        assert!(BuildOptions::parse("-D f(x").is_err());
    }

    #[test]
    fn include_dirs_quoted_or_not() {
        let o = BuildOptions::parse("-I /a -I\"/b c\" -I \"/d e\" -I/f").unwrap();
        assert_eq!(o.include_dirs, vec!["/a", "/b c", "/d e", "/f"]);
        assert!(BuildOptions::parse("-I").is_err());
        assert!(BuildOptions::parse("-I \"\"").is_err());
    }

    #[test]
    fn cl_std_values() {
        for (text, std) in [
            ("CL1.0", ClStd::Cl1_0),
            ("CL1.1", ClStd::Cl1_1),
            ("CL1.2", ClStd::Cl1_2),
            ("CL2.0", ClStd::Cl2_0),
            ("CL3.0", ClStd::Cl3_0),
            ("cl3.0", ClStd::Cl3_0),
        ] {
            let o = BuildOptions::parse(&format!("-cl-std={text}")).unwrap();
            assert_eq!(o.cl_std, std, "{text}");
        }
        assert_eq!(ClStd::Cl3_0.version_number(), 300);
        assert!(BuildOptions::parse("-cl-std=CL4.0").is_err());
        assert!(BuildOptions::parse("-cl-std=").is_err());
        assert!(BuildOptions::parse("-cl-std").is_err());
    }

    #[test]
    fn every_flag_is_accepted() {
        let o = BuildOptions::parse(
            "-cl-single-precision-constant -cl-denorms-are-zero \
             -cl-fp32-correctly-rounded-divide-sqrt -cl-opt-disable -cl-mad-enable \
             -cl-no-signed-zeros -cl-finite-math-only -cl-uniform-work-group-size \
             -cl-no-subgroup-ifp -w -Werror -cl-kernel-arg-info -g -cl-strict-aliasing \
             -create-library -enable-link-options",
        )
        .unwrap();
        assert!(o.single_precision_constant);
        assert!(o.denorms_are_zero);
        assert!(o.fp32_correctly_rounded_divide_sqrt);
        assert!(o.opt_disable);
        assert!(o.mad_enable);
        assert!(o.no_signed_zeros);
        assert!(o.finite_math_only);
        assert!(o.uniform_work_group_size);
        assert!(o.no_subgroup_ifp);
        assert!(o.suppress_warnings);
        assert!(o.warnings_are_errors);
        assert!(o.kernel_arg_info);
        assert!(o.debug_info);
        assert!(o.strict_aliasing);
        assert!(o.create_library);
        assert!(o.enable_link_options);
        assert!(!o.fast_relaxed_math);
        assert!(!o.unsafe_math_optimizations);
    }

    #[test]
    fn fast_relaxed_math_implies_the_others() {
        let o = BuildOptions::parse("-cl-fast-relaxed-math").unwrap();
        assert!(o.fast_relaxed_math);
        assert!(o.finite_math_only);
        assert!(o.unsafe_math_optimizations);
        assert!(o.no_signed_zeros);
        assert!(o.mad_enable);
        assert!(o.denorms_are_zero);
        let o = BuildOptions::parse("-cl-unsafe-math-optimizations").unwrap();
        assert!(o.unsafe_math_optimizations && o.mad_enable && o.no_signed_zeros);
        assert!(!o.finite_math_only && !o.fast_relaxed_math);
    }

    #[test]
    fn unknown_options_are_errors() {
        let e = BuildOptions::parse("-cl-mad-enable -O3").unwrap_err();
        assert!(e.contains("-O3"), "{e}");
        assert!(BuildOptions::parse("cl-mad-enable").is_err());
        assert!(BuildOptions::parse("-Wall").is_err());
        assert!(BuildOptions::parse("-x spir").is_err());
    }

    #[test]
    fn unterminated_quotes_are_errors() {
        assert!(BuildOptions::parse("-I \"/a").is_err());
        assert!(BuildOptions::parse("-D 'X=1").is_err());
    }
}
