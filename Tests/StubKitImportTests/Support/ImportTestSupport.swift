#if Tools
import Foundation
import StubKit
import StubKitImport
import StubKitTestSupport
import Testing

/// Imports files in-process, as `stubkit import` does, failing the calling test on unreadable input.
func importFiles(_ files: [URL], to bundle: URL, format: ImportFormat? = nil, sourceLocation: SourceLocation = #_sourceLocation) throws -> ImportReport {
    let importer = BundleImporter(format: format)
    let (batches, errors) = importer.read(files)
    try #require(errors.isEmpty, "\(errors)", sourceLocation: sourceLocation)
    return try importer.write(batches, to: bundle)
}

/// The rules of a written bundle, loaded as the engine loads them; no error allowed.
func loadedRules(_ bundle: URL, sourceLocation: SourceLocation = #_sourceLocation) -> [StubRule] {
    let result = BundleLoader().load(folder: bundle)
    let errors = result.diagnostics.filter { $0.severity == .error }
    #expect(errors.isEmpty, "\(errors)", sourceLocation: sourceLocation)
    return result.bundle.rules
}

/// A HAR document with the given entries (`request`/`response` dictionaries filled with defaults).
func harDocument(_ entries: [[String: Any]]) -> Data {
    let full = entries.map { entry -> [String: Any] in
        var request = entry["request"] as? [String: Any] ?? [:]
        request["httpVersion"] = "HTTP/1.1"
        request["headers"] = request["headers"] ?? [] as [Any]
        request["queryString"] = [] as [Any]
        var response = entry["response"] as? [String: Any] ?? [:]
        response["headers"] = response["headers"] ?? [] as [Any]
        response["content"] = response["content"] ?? ["size": 0, "mimeType": "x-unknown"]
        return ["startedDateTime": entry["startedDateTime"] ?? "2024-05-01T10:00:00.000Z", "time": 1, "request": request, "response": response]
    }
    return try! JSONSerialization.data(withJSONObject: ["log": ["version": "1.2", "creator": ["name": "test", "version": "1"], "entries": full]], options: [.sortedKeys])
}

/// A WireMock root in `folder`: `wm/mappings/` with the given files, `wm/__files/` with the given bodies.
func wireMockRoot(_ folder: TemporaryFolder, mappings: [String: String], files: [String: Data] = [:]) throws -> URL {
    for (name, text) in mappings { _ = try folder.file("wm/mappings/\(name)", data: Data(text.utf8)) }
    for (name, data) in files { _ = try folder.file("wm/__files/\(name)", data: data) }
    return folder.url.appendingPathComponent("wm")
}

/// The standard output of `/bin/sh -c command` (the system's gzip, independent of the importer's zlib).
func shellOutput(_ command: String) throws -> Data {
    try ChildProcess.run(executableURL: URL(fileURLWithPath: "/bin/sh"), arguments: ["-c", command]).stdoutData
}

func bodyData(of response: StubResponse) -> Data {
    switch response.body {
    case .empty: return Data()
    case .inline(let data), .json(let data): return data
    case .file(let url): return (try? Data(contentsOf: url)) ?? Data()
    }
}
#endif
