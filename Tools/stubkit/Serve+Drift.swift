#if Tools
import ArgumentParser
import Foundation
import StubKit
import StubKitOpenAPI

/// `stubkit serve --record … --openapi SPEC`: at the end of a recording, the responses the real backend
/// sent are checked against the spec, and those that do not fit are reported as drift on stderr.
extension Serve {
    /// Prints the drift report of the recorded bundle: each SK217 finding as `stublint lint --openapi`
    /// prints it (with its note at the spec), then how many recorded responses do not fit. Nothing when
    /// every response fits. The exit status stays 0: the run itself went well, and a CI gate is
    /// `stublint lint --openapi` on the bundle.
    func reportDrift(of recorder: Recorder, against spec: OpenAPISpec) {
        let cwd = URL(fileURLWithPath: FileManager.default.currentDirectoryPath, isDirectory: true)
        let report = OpenAPILinter(spec: spec, displayBase: cwd).lint(folders: [recorder.configuration.bundleFolder], coverage: false)
        let drift = report.diagnostics.filter { $0.code == .recordedResponseDrift }
        guard !drift.isEmpty else { return }
        var text = ""
        for diagnostic in drift {
            text += diagnostic.description + "\n"
            if let related = diagnostic.related { text += related.noteLine + "\n" }
        }
        let count = report.driftedResponses
        text += "\(count) recorded response\(count == 1 ? " does" : "s do") not fit \(openapi ?? "the spec"): the real backend changed, or the spec is out of date\n"
        FileHandle.standardError.write(Data(text.utf8))
    }
}
#endif
