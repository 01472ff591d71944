#if Tools
import Foundation
import StubKit

/// Rewrites a bundle that uses the older Just Eat-style keys (`matching_url`, `json_file`,
/// `status_code`, `http_method`, `inline_response`) into a `stubsRules.json` with the current keys,
/// keeping its response files and every other key as they are.
///
/// In place, the bundle is first copied to a sibling `<bundle>.pre-migrate` folder; with a
/// destination, the bundle is copied there and the copy is rewritten. The result must load with no
/// error and no legacy-key note, or nothing is changed.
package struct LegacyMigrator: Sendable {
    package init() {}

    package struct Result: Sendable {
        /// The rewritten rules file.
        package var rulesFile: URL
        /// The copy of the bundle as it was (in-place migrations only).
        package var backup: URL?
        /// How many rules had a legacy key.
        package var migratedRules: Int
        package var notes: [ImportNote]
    }

    /// Migrates `bundle`, in place or into `destination`.
    ///
    /// - Throws: ``ImportError`` naming the file (and line or key) when the rules file cannot be read,
    ///   the destination or backup exists, or the migrated bundle would not load cleanly.
    package func migrate(_ bundle: URL, to destination: URL? = nil) throws(ImportError) -> Result {
        let fm = FileManager.default
        guard let name = RuleKeys.rulesFileNames.first(where: { fm.fileExists(atPath: bundle.appendingPathComponent($0).path) }) else {
            throw ImportError(file: bundle.path, "no rules file (\(RuleKeys.rulesFileNames.joined(separator: ", "))): not a bundle")
        }
        let source = bundle.appendingPathComponent(name)
        guard let data = fm.contents(atPath: source.path) else { throw ImportError(file: source.path, "cannot be read") }
        let top: Any
        do {
            top = name.hasSuffix(".json") ? try JSONSerialization.jsonObject(with: data) : try PropertyListSerialization.propertyList(from: data, format: nil)
        } catch {
            do { _ = try BundleLoader.parse(data, fileName: name) } catch {
                throw ImportError(file: source.path, location: error.position.map { "\($0.line):\($0.column)" }, error.message)
            }
            throw ImportError(file: source.path, "cannot be parsed: \(error.localizedDescription)")
        }
        var notes: [ImportNote] = []
        var migrated = 0
        let rewritten: Any
        if let rules = top as? [Any] {
            rewritten = rules.enumerated().map { migrateRule($1, keyPath: "[\($0)]", file: source.path, count: &migrated, notes: &notes) }
        } else if var dictionary = top as? [String: Any], let rules = dictionary[RuleKey.rules.rawValue] as? [Any] {
            dictionary[RuleKey.rules.rawValue] = rules.enumerated().map { migrateRule($1, keyPath: "rules[\($0)]", file: source.path, count: &migrated, notes: &notes) }
            rewritten = dictionary
        } else {
            throw ImportError(file: source.path, "neither a list of rules nor a dictionary with 'rules'")
        }
        let json: Data
        do {
            json = try JSONSerialization.data(withJSONObject: rewritten, options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes])
        } catch {
            throw ImportError(file: source.path, "holds values JSON cannot represent (dates or data): \(error.localizedDescription)")
        }

        // Where to write: a copy, or the bundle itself after a backup.
        var target = bundle.standardizedFileURL
        var backup: URL? = nil
        do {
            if let destination {
                if fm.fileExists(atPath: destination.path) {
                    throw ImportError(file: destination.path, "already exists; name a new folder")
                }
                try fm.createDirectory(at: destination.deletingLastPathComponent(), withIntermediateDirectories: true)
                try fm.copyItem(at: bundle, to: destination)
                target = destination.standardizedFileURL
            } else {
                let copy = bundle.standardizedFileURL.deletingLastPathComponent().appendingPathComponent(bundle.lastPathComponent + ".pre-migrate")
                if fm.fileExists(atPath: copy.path) {
                    throw ImportError(file: copy.path, "a backup from an earlier migration is in the way; move it first")
                }
                try fm.copyItem(at: bundle, to: copy)
                backup = copy
            }
            try fm.removeItem(at: target.appendingPathComponent(name))
            try (json + Data("\n".utf8)).write(to: target.appendingPathComponent("stubsRules.json"), options: .atomic)
        } catch let error as ImportError {
            throw error
        } catch {
            throw ImportError(file: target.path, "cannot be written: \(error.localizedDescription)")
        }
        let loaded = BundleLoader(options: .lint).load(folder: target)
        let problems = loaded.diagnostics.filter { $0.severity == .error || $0.code == .legacyKey }
        if !problems.isEmpty {
            // Put the bundle back as it was: a migration never leaves a worse bundle.
            if let backup {
                try? fm.removeItem(at: target.appendingPathComponent("stubsRules.json"))
                try? fm.copyItem(at: backup.appendingPathComponent(name), to: target.appendingPathComponent(name))
                try? fm.removeItem(at: backup)
            } else {
                try? fm.removeItem(at: target)
            }
            throw ImportError(file: target.appendingPathComponent("stubsRules.json").path, "the migrated bundle does not load cleanly, so it was not kept: \(problems.map(\.description).joined(separator: "; "))")
        }
        return Result(rulesFile: target.appendingPathComponent("stubsRules.json"), backup: backup, migratedRules: migrated, notes: notes)
    }

    private func migrateRule(_ value: Any, keyPath: String, file: String, count: inout Int, notes: inout [ImportNote]) -> Any {
        guard var rule = value as? [String: Any] else { return value }
        var changed = false
        let legacyKeys = RuleKey.allCases.compactMap { key in key.current.map { (legacy: key, current: $0) } }
        for (legacy, current) in legacyKeys.sorted(by: { $0.legacy.rawValue < $1.legacy.rawValue }) {
            guard let old = rule.removeValue(forKey: legacy.rawValue) else { continue }
            changed = true
            var new: Any? = old
            switch legacy {
            case .jsonFile: new = (old as? String).map { $0 + ".json" }
            case .statusCode: new = (old as? String).flatMap { Int($0.trimmingCharacters(in: .whitespaces)) } ?? old
            case .inlineResponse: new = (old as? String).flatMap { $0.isEmpty ? nil : $0 }
            default: break
            }
            guard let new else { continue }
            if rule[current.rawValue] != nil {
                notes.append(ImportNote(source: "\(file): \(keyPath).\(legacy.rawValue)", message: "'\(current.rawValue)' is set too, so the legacy value was dropped"))
            } else {
                rule[current.rawValue] = new
            }
        }
        if changed { count += 1 }
        return rule
    }
}
#endif
