import Foundation

/// Files a rule names: response bodies and templates, resolved inside the bundle folder and checked
/// on the file system before anything is served from them.
extension RulesDecoder {
    /// Resolves a response file inside the bundle folder, refusing any path that leaves it.
    mutating func responseFile(_ relative: String, at position: SourcePosition?, keyPath: @autoclosure () -> String) -> URL? {
        if relative.isEmpty {
            report(.invalidValue, at: position, keyPath: keyPath(), "the response file name is empty", fix: "name a file in the bundle folder")
            return nil
        }
        if relative.hasPrefix("/") || relative.hasPrefix("~") {
            report(.responseOutsideBundle, at: position, keyPath: keyPath(), "response file '\(relative)' is an absolute path",
                   fix: "copy the file into the bundle folder and name it relative to the folder")
            return nil
        }
        var depth = 0
        for component in relative.split(separator: "/") {
            if component == ".." { depth -= 1 } else if component != "." { depth += 1 }
            if depth < 0 {
                report(.responseOutsideBundle, at: position, keyPath: keyPath(), "response file '\(relative)' lies outside the bundle folder",
                       fix: "copy the file into the bundle folder; bundles must be self-contained")
                return nil
            }
        }
        let url = folder.appendingPathComponent(relative).standardizedFileURL
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) else {
            let siblings = (try? FileManager.default.contentsOfDirectory(atPath: url.deletingLastPathComponent().path)) ?? []
            let suggestion = Suggestion.closest(to: url.lastPathComponent, in: siblings.filter { !RuleKeys.rulesFileNames.contains($0) })
            report(.missingResponseFile, at: position, keyPath: keyPath(), "response file '\(relative)' does not exist",
                   fix: suggestion.map { "did you mean '\($0)'?" } ?? "add the file to the bundle folder or correct the name")
            return nil
        }
        // Named by a rule, so never reported as unused, even when refused below.
        referencedFiles.insert(url.path)
        let resolved = url.resolvingSymlinksInPath().path
        guard FileContainment.isInside(url, folder: folder) else {
            report(.responseOutsideBundle, at: position, keyPath: keyPath(), "response file '\(relative)' is a symbolic link to a file outside the bundle folder",
                   fix: "replace the link with a copy of the file")
            return nil
        }
        if isDirectory.boolValue {
            report(.unreadableFile, at: position, keyPath: keyPath(), "response file '\(relative)' is a folder", fix: "name a file")
            return nil
        }
        // Links are resolved once, here: size, streaming, the journal and limits all use the target.
        let target = URL(fileURLWithPath: resolved)
        referencedFiles.insert(target.standardizedFileURL.path)
        if let kind = Self.nonRegularKind(atPath: resolved) {
            report(.unreadableFile, at: position, keyPath: keyPath(), "response file '\(relative)' is \(kind), not a regular file; reading it could block the app",
                   fix: "replace it with a regular file holding the response body")
            return nil
        }
        guard FileManager.default.isReadableFile(atPath: resolved) else {
            report(.unreadableFile, at: position, keyPath: keyPath(), "response file '\(relative)' cannot be read", fix: "check its permissions")
            return nil
        }
        return target
    }

    /// A template file's text, if it is UTF-8.
    enum TemplateFileText {
        case text(String)
        /// A template is text: a file that is not UTF-8 would render as mojibake.
        case notUTF8
        /// Not readable now (it was checked when the rule named it); the template is left out.
        case unreadable
    }

    static func templateFileText(_ url: URL) -> TemplateFileText {
        guard let data = try? Data(contentsOf: url) else { return .unreadable }
        if TextEncoding.wideEncoding(of: [UInt8](data.prefix(4))) != nil || TextEncoding.firstInvalidUTF8(in: [UInt8](data)) != nil {
            return .notUTF8
        }
        return .text(String(decoding: data, as: UTF8.self))
    }

    /// What a path is when it is not a regular file (following links), or `nil` for a regular file.
    static func nonRegularKind(atPath path: String) -> String? {
        guard let type = (try? FileManager.default.attributesOfItem(atPath: path))?[.type] as? FileAttributeType else { return "unreadable" }
        switch type {
        case .typeRegular: return nil
        case .typeDirectory: return "a folder"
        case .typeCharacterSpecial, .typeBlockSpecial: return "a device"
        case .typeSocket: return "a socket"
        case .typeSymbolicLink: return "a broken symbolic link"
        default:
            var info = stat()
            if stat(path, &info) == 0, (info.st_mode & mode_t(S_IFMT)) == mode_t(S_IFIFO) { return "a named pipe (FIFO)" }
            return "not a regular file"
        }
    }
}
