import Foundation

/// A response body on its way to a bundle, streamed into a temporary file as it arrives, so a huge
/// response costs disk, not memory.
///
/// Used by one load on its executor's context, one call at a time. The file is removed when the
/// capture goes away unless the writer moved it into the bundle.
final class ResponseCapture: @unchecked Sendable {
    let url: URL
    private var handle: FileHandle?
    private(set) var count = 0
    private(set) var failed: (any Error)?

    init?() {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("stubkit-capture-\(UUID().uuidString)")
        guard FileManager.default.createFile(atPath: url.path, contents: nil), let handle = FileHandle(forWritingAtPath: url.path) else { return nil }
        self.handle = handle
    }

    deinit {
        try? handle?.close()
        try? FileManager.default.removeItem(at: url)
    }

    func append(_ data: Data) {
        guard failed == nil, let handle else { return }
        do {
            try handle.write(contentsOf: data)
            count += data.count
        } catch {
            failed = error
        }
    }

    /// Closes the file; `nil` when writing it failed.
    func finish() -> URL? {
        try? handle?.close()
        handle = nil
        return failed == nil ? url : nil
    }
}
