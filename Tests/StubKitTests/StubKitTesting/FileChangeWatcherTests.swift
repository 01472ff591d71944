import Foundation
import Testing
@testable import StubKitTesting
import StubKitTestSupport

/// The watcher follows the file's name: after the file is replaced, writes to the new one are seen.
/// Each test waits until the handler has read a marker written after the replacement: a watcher left
/// on the old file never sees it.
struct FileChangeWatcherTests {
    /// Calls `watcher`'s handler reads of `path`, and waits until one finds `marker`.
    final class MarkerWait: @unchecked Sendable {
        let path: String
        let found = DispatchSemaphore(value: 0)
        private let lock = NSLock()
        private var markers: [String] = []

        init(path: String) { self.path = path }

        func expect(_ marker: String) { lock.withLock { markers.append(marker) } }

        func changed() {
            let text = (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
            let hit = lock.withLock { () -> Bool in
                guard let marker = markers.first, text.contains(marker) else { return false }
                markers.removeFirst()
                return true
            }
            if hit { found.signal() }
        }
    }

    enum Replacement: String, CaseIterable, CustomTestStringConvertible, Sendable {
        case deleteAndCreate = "deleted and created again"
        case renameIntoPlace = "a new file renamed into place"
        case deleteCreateTwice = "deleted and created again, twice"
        var testDescription: String { rawValue }
    }

    @Test("writes to the file under the name are seen after it is replaced", arguments: Replacement.allCases)
    func followsTheName(_ replacement: Replacement) throws {
        let folder = try TemporaryFolder()
        let path = try folder.file("journal.jsonl", data: Data("first\n".utf8)).path
        let wait = MarkerWait(path: path)
        let watcher = try FileChangeWatcher(path: path, queue: DispatchQueue(label: "watch")) { wait.changed() }
        defer { watcher.cancel() }
        func append(_ text: String) throws {
            let handle = try #require(FileHandle(forWritingAtPath: path))
            handle.seekToEndOfFile()
            handle.write(Data(text.utf8))
            try handle.close()
        }
        wait.expect("before")
        try append("before\n")
        #expect(wait.found.wait(timeout: .now() + 10) == .success, "a write to the first file was not seen")
        let rounds = replacement == .deleteCreateTwice ? 2 : 1
        for round in 0..<rounds {
            wait.expect("new \(round)")
            switch replacement {
            case .deleteAndCreate, .deleteCreateTwice:
                try FileManager.default.removeItem(atPath: path)
                FileManager.default.createFile(atPath: path, contents: Data("new \(round)\n".utf8))
            case .renameIntoPlace:
                let other = folder.url.appendingPathComponent("next.tmp").path
                FileManager.default.createFile(atPath: other, contents: Data("new \(round)\n".utf8))
                #expect(rename(other, path) == 0)
            }
            #expect(wait.found.wait(timeout: .now() + 10) == .success, "the replacement \(round) was not seen")
            // An append only: no folder event, so only a watch on the new file sees it.
            wait.expect("after \(round)")
            try append("after \(round)\n")
            #expect(wait.found.wait(timeout: .now() + 10) == .success, "a write to the new file \(round) was not seen")
        }
    }
}
