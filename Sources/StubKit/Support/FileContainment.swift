import Foundation

/// Whether a path lies inside a folder, judged where the file system really puts both.
///
/// A rules file, a WireMock mapping or an import destination names paths that may hold `..` or pass
/// through symbolic links; comparing the text of the paths lets `linked/secret` out of a bundle and
/// takes `/a/bc` for a file inside `/a/b`. Here both sides are resolved first and compared by whole
/// components.
package enum FileContainment {
    /// Whether `path` is `folder` itself or lies inside it, after resolving symbolic links and `..`
    /// on both sides. (A caller that needs a file inside says so by checking for a folder: the folder
    /// itself is never a readable file.)
    ///
    /// A path that does not exist (yet) is resolved as far as it exists, and the rest taken as written
    /// with `..` removed, so a destination about to be created is judged by where it would go.
    package static func isInside(_ path: URL, folder: URL) -> Bool {
        let inner = components(of: resolvedPath(path)), outer = components(of: resolvedPath(folder))
        return inner.count >= outer.count && inner.starts(with: outer)
    }

    /// The absolute path of `url` with every symbolic link and `.`/`..` resolved as the system
    /// resolves them (`link/..` is the link target's parent, not the folder holding the link).
    package static func resolvedPath(_ url: URL) -> String {
        resolved(url.path)
    }

    private static func resolved(_ path: String) -> String {
        if let real = realpath(path, nil) {
            defer { free(real) }
            return String(cString: real)
        }
        // Not there: resolve the part that exists, then follow the rest as written.
        let parentPath = (path as NSString).deletingLastPathComponent
        let last = (path as NSString).lastPathComponent
        guard parentPath != path, !parentPath.isEmpty else { return path }
        let parent = resolved(parentPath)
        switch last {
        case "", ".": return parent
        case "..": return (parent as NSString).deletingLastPathComponent
        default: return parent == "/" ? "/" + last : parent + "/" + last
        }
    }

    private static func components(of path: String) -> [Substring] {
        path.split(separator: "/", omittingEmptySubsequences: true)
    }
}
