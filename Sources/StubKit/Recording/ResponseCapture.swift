import Foundation

/// A response body on its way to a bundle, streamed into a temporary file as it arrives, so a huge
/// response costs disk, not memory.
///
/// Used by one load on its executor's context, one call at a time. The file is removed when the
/// capture goes away unless the writer moved it into the bundle.
package final class ResponseCapture: @unchecked Sendable {
    let url: URL
    private var handle: FileHandle?
    private(set) var count = 0
    private(set) var failed: (any Error)?
    /// The body held in memory once writing the file failed.
    private var fallback: Data?

    private let removesFile: Bool

    init?() {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("stubkit-capture-\(UUID().uuidString)")
        removesFile = true
        guard FileManager.default.createFile(atPath: url.path, contents: nil), let handle = FileHandle(forWritingAtPath: url.path) else { return nil }
        self.handle = handle
    }

    /// Streams into an existing file, opened for writing as it is (never created or truncated).
    init?(writingTo url: URL, removesFile: Bool) {
        self.url = url
        self.removesFile = removesFile
        guard let handle = FileHandle(forWritingAtPath: url.path) else { return nil }
        self.handle = handle
    }

    deinit {
        try? handle?.close()
        if removesFile { try? FileManager.default.removeItem(at: url) }
    }

    /// Takes the next chunk. When writing fails (a full disk), the recording has failed; for a
    /// one-piece task the body so far and every later chunk are kept in memory instead, so the app
    /// still gets the whole body.
    /// Bytes held in memory after a failed write.
    var heldInMemory: Int { fallback?.count ?? 0 }

    /// - Parameter keepingOnFailure: keep the body in memory once writing fails. Only a task that
    ///   takes its body in one piece needs that; a streamed load already gave the app each chunk, and
    ///   the failed exchange is not recorded, so it keeps nothing.
    package func append(_ data: Data, keepingOnFailure: Bool = true) {
        if fallback != nil {
            fallback!.append(data)
            return
        }
        guard let handle, failed == nil else { return }
        do {
            try handle.write(contentsOf: data)
            count += data.count
        } catch {
            failed = error
            guard keepingOnFailure else {
                try? handle.close()
                self.handle = nil
                return
            }
            var written = Data()
            if count > 0, let reader = FileHandle(forReadingAtPath: url.path) {
                written = (try? reader.read(upToCount: count)) ?? Data()
                try? reader.close()
            }
            fallback = written + data
        }
    }

    /// The whole body, for a task that takes it in one piece: the file mapped (it can be renamed into
    /// the bundle meanwhile), or what was kept in memory once writing failed.
    func wholeBody() -> Data? {
        if let fallback { return fallback }
        return finish().flatMap { try? Data(contentsOf: $0, options: .alwaysMapped) }
    }

    /// Closes the file; `nil` when writing it failed.
    func finish() -> URL? {
        try? handle?.close()
        handle = nil
        return failed == nil ? url : nil
    }
}
