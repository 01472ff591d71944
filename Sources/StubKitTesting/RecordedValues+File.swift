import Foundation
import StubKit
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

extension RecordedValues {
    /// Saves in this process take turns, so two stores of one bundle (two tests) cannot each read the
    /// file, add their own value and write, losing the other's; the folder's lock does the same across
    /// processes (parallel test runners). An Int, not Void: a zero-sized value shares its address with
    /// the lock's mutex, which the thread sanitizer then reports as a race with another thread's locking.
    private static let saving = Locked(0)

    /// The values files this process has recorded anew (``Mode/record``), by resolved path: its first
    /// save there drops what an earlier recording left, later saves (other stores, other tests of this
    /// run) merge with what this run saved.
    private static let recordedAnew = Locked<Set<String>>([])

    /// The values in `file`, or `nil` when there is no such file.
    static func read(_ file: URL) throws(RecordedValuesError) -> [String: String]? {
        let data: Data
        do {
            data = try Data(contentsOf: file)
        } catch {
            if !FileManager.default.fileExists(atPath: file.path) { return nil }
            throw RecordedValuesError(.unreadable("cannot be read: \(error.localizedDescription)"), file: file)
        }
        return try decode(data, file: file)
    }

    /// A JSON object of names to strings, as `write` writes it.
    static func decode(_ data: Data, file: URL) throws(RecordedValuesError) -> [String: String] {
        guard String(data: data, encoding: .utf8) != nil else {
            throw RecordedValuesError(.unreadable("is not UTF-8 text"), file: file)
        }
        let top: SourceValue
        do {
            top = try JSONSourceParser().parse(data)
        } catch {
            throw RecordedValuesError(.unreadable("is not valid JSON: \(error.description)"), file: file)
        }
        guard case .dictionary(let entries) = top.kind else {
            throw RecordedValuesError(.unreadable("\(top.position.map { "\($0): " } ?? "")expected a JSON object of names to strings, found \(kindName(top))"), file: file)
        }
        var values: [String: String] = [:]
        for entry in entries {
            guard case .string(let text) = entry.value.kind else {
                let at = (entry.value.position ?? entry.keyPosition).map { "\($0): " } ?? ""
                throw RecordedValuesError(.unreadable("\(at)the value of '\(entry.key)' is \(kindName(entry.value)); recorded values are strings"), file: file)
            }
            guard values.updateValue(text, forKey: entry.key) == nil else {
                let at = entry.keyPosition.map { "\($0): " } ?? ""
                throw RecordedValuesError(.unreadable("\(at)'\(entry.key)' appears twice; keep one"), file: file)
            }
        }
        return values
    }

    /// Reads `file`, lets `change` edit its values, and writes the result when it differs, atomically:
    /// to a hidden temporary in the same folder, then renamed over the file, so a test killed at any
    /// moment leaves the old file or the new one. Returns what the file now holds.
    ///
    /// Runs under the folder's lock, which other runner processes and the app's recorder (emptying the
    /// folder in mode `all`) take too. With `recordingAnew`, the first save of this process to `file`
    /// hands `change` no values, so values of an earlier recording are dropped, not merged.
    static func update(_ file: URL, recordingAnew: Bool, _ change: ([String: String]) -> [String: String]) throws(RecordedValuesError) -> [String: String] {
        let folder = file.deletingLastPathComponent()
        do {
            return try saving.withLock { _ in
                try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
                let key = file.resolvingSymlinksInPath().path
                return try FolderLock.withExclusiveLock(on: folder) {
                    removeLeftoverTemporaries(of: file)
                    let current = try read(file)
                    let anew = recordingAnew && !recordedAnew.withLock { $0.contains(key) }
                    let updated = change(anew ? [:] : current ?? [:])
                    if updated != current { try write(updated, to: file) }
                    if anew { recordedAnew.withLock { _ = $0.insert(key) } }
                    return updated
                }
            }
        } catch let error as RecordedValuesError {
            throw error
        } catch {
            throw RecordedValuesError(.unwritable(error.localizedDescription), file: file)
        }
    }

    /// Temporaries of saves that crashed before renaming: every save writes its temporary under the
    /// folder's lock, so one found while holding it is nobody's.
    private static func removeLeftoverTemporaries(of file: URL) {
        let folder = file.deletingLastPathComponent()
        let prefix = ".\(file.lastPathComponent).tmp-"
        for name in (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? [] where name.hasPrefix(prefix) {
            try? FileManager.default.removeItem(at: folder.appendingPathComponent(name))
        }
    }

    private static func write(_ values: [String: String], to file: URL) throws(RecordedValuesError) {
        let folder = file.deletingLastPathComponent()
        let temporary = folder.appendingPathComponent(".\(file.lastPathComponent).tmp-\(UUID().uuidString)")
        do {
            let json = try JSONSerialization.data(withJSONObject: values, options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes])
            try (json + Data("\n".utf8)).write(to: temporary)
        } catch {
            try? FileManager.default.removeItem(at: temporary)
            throw RecordedValuesError(.unwritable(error.localizedDescription), file: file)
        }
        guard rename(temporary.path, file.path) == 0 else {
            let reason = String(cString: strerror(errno))
            try? FileManager.default.removeItem(at: temporary)
            throw RecordedValuesError(.unwritable(reason), file: file)
        }
    }

    private static func kindName(_ value: SourceValue) -> String {
        switch value.kind {
        case .string: return "a string"
        case .integer, .real: return "a number"
        case .bool: return "a boolean"
        case .null: return "null"
        case .date: return "a date"
        case .data: return "data"
        case .array: return "an array"
        case .dictionary: return "an object"
        }
    }
}
