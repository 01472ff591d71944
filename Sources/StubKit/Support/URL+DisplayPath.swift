import Foundation

extension URL {
    /// This file's path as diagnostics and reports show it: relative to `base` when it lies inside
    /// it, otherwise absolute (so is `base` itself, which has no shorter name).
    ///
    /// Judged by the paths as written, `..` removed: a person reads the name they gave, not where links
    /// lead. Whole components only: `/a/bc` is not inside `/a/b`.
    package func displayPath(relativeTo base: URL?) -> String {
        let path = standardizedFileURL.path
        guard let base = base?.standardizedFileURL.path else { return path }
        let prefix = base.hasSuffix("/") ? base : base + "/"
        return path.hasPrefix(prefix) ? String(path.dropFirst(prefix.count)) : path
    }
}
