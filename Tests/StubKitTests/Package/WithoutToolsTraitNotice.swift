#if !Tools
import Testing

/// Built without the `Tools` trait, the tools' suites (server, importers, OpenAPI, the CLIs) are not
/// compiled: this says so in the test report instead of letting the run look complete.
@Suite("Built without the Tools trait")
struct WithoutToolsTraitNotice {
    @Test(.disabled("the server, importer, OpenAPI and CLI suites need the Tools trait: swift test --traits Tools"))
    func toolsSuitesDidNotRun() {}
}
#endif
