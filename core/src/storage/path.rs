//! Object paths as storage-js writes them into URLs: `<bucket>/<path>` with the path's leading
//! slashes dropped, and not percent-encoded.

/// `_getFinalPath`: `<bucket>/<path without its leading slashes>`.
pub fn final_path(bucket: &str, path: &str) -> String {
    format!("{bucket}/{}", path.trim_start_matches('/'))
}

/// `_removeEmptyFolders`, which uploads apply first: one leading and one trailing slash go, and
/// runs of slashes become one.
pub fn clean_path(path: &str) -> String {
    let path = path.strip_prefix('/').unwrap_or(path);
    let path = path.strip_suffix('/').unwrap_or(path);
    let mut clean = String::with_capacity(path.len());
    for c in path.chars() {
        if !(c == '/' && clean.ends_with('/')) {
            clean.push(c);
        }
    }
    clean
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn final_paths_drop_every_leading_slash_and_encode_nothing() {
        assert_eq!(final_path("b", "a/c.txt"), "b/a/c.txt");
        assert_eq!(final_path("b", "///a//c/"), "b/a//c/");
        assert_eq!(final_path("b", "a b/é?.txt"), "b/a b/é?.txt");
        assert_eq!(final_path("b", ""), "b/");
    }

    #[test]
    fn clean_paths_lose_one_outer_slash_each_side_and_collapse_runs() {
        assert_eq!(clean_path("/a//b///c/"), "a/b/c");
        assert_eq!(clean_path("//a/"), "/a");
        assert_eq!(clean_path("a//"), "a/");
        assert_eq!(clean_path("plain.txt"), "plain.txt");
        assert_eq!(clean_path("/"), "");
    }
}
