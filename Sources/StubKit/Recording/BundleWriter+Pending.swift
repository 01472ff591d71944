import Foundation

/// The `.stubkit-pending` file: which response file an append was writing when the app was killed.
///
/// The file is data in the bundle folder, so it is read as untrusted: a name is acted on only when it
/// is one the writer itself could have made, names a regular file, is no rules file and is used by no
/// rule (references compared after parsing, `./GET_a.json` being `GET_a.json`).
extension BundleWriter {
    /// Response files a killed append left visible but not yet in the rules (see ``pendingFileName``):
    /// names of the writer's own scheme only (``uniqueName(for:extension:taken:)``).
    static func pendingResponseFiles(in folder: URL) -> [String] {
        guard let data = FileManager.default.contents(atPath: folder.appendingPathComponent(pendingFileName).path) else { return [] }
        return String(decoding: data, as: UTF8.self).split(whereSeparator: \.isNewline).map(String.init)
            .filter { name in
                !RuleKeys.rulesFileNames.contains { $0.lowercased() == name.lowercased() }
                    && writerNamePattern.firstMatch(in: name, range: NSRange(name.startIndex..., in: name)) != nil
            }
    }

    /// `GET_restaurants_1_menu.json`, `POST_root_2.txt`: a method, `_`, then letters, digits, `-`, `_`,
    /// and an optional extension. No `/`, no leading `.`.
    static let writerNamePattern = try! NSRegularExpression(pattern: #"^[A-Z][A-Z0-9-]*_[A-Za-z0-9_-]+(\.[A-Za-z0-9]+)?$"#)

    /// Deletes the response file an append killed before its rules were written left behind, then the
    /// pending file itself.
    static func removeUnfinishedAppend(in folder: URL, rules: [Any]) {
        let fm = FileManager.default
        let used = referencedNames(in: rules)
        for name in pendingResponseFiles(in: folder) where !used.contains(name.lowercased()) {
            let url = folder.appendingPathComponent(name)
            guard (try? fm.attributesOfItem(atPath: url.path)[.type] as? FileAttributeType) == .typeRegular else { continue }
            try? fm.removeItem(at: url)
        }
        try? fm.removeItem(at: folder.appendingPathComponent(pendingFileName))
    }

    /// Every string in the parsed rules, as a file name (`./` prefixes dropped, lower-cased for
    /// case-insensitive file systems): whatever a rule might reference counts as used.
    private static func referencedNames(in rules: [Any]) -> Set<String> {
        var names: Set<String> = []
        func walk(_ value: Any) {
            if let text = value as? String {
                var name = Substring(text)
                while name.hasPrefix("./") { name = name.dropFirst(2) }
                names.insert(name.lowercased())
            } else if let array = value as? [Any] {
                array.forEach(walk)
            } else if let object = value as? [String: Any] {
                object.values.forEach(walk)
            }
        }
        rules.forEach(walk)
        return names
    }
}
