#if Tools
/// What one run of stubbench does.
enum BenchmarkMode {
    /// Which session `--profile-e2e` sends its requests through.
    enum Floor {
        /// StubKit's, over a bundle of 1,000 rules.
        case none
        /// A minimal constant URLProtocol, with the session's URL cache.
        case cached
        /// The same without the URL cache, as `.stubbed(by:)` sets a session up.
        case uncached
    }

    /// Every suite, and the JSON report.
    case full
    case adversarial
    case liveJournal
    case shapes
    case loadRegex
    case writeHAR(entries: Int, file: String)
    case profileEndToEnd(floor: Floor, count: Int)
    case profileLoad(rules: Int, times: Int)
    case profileLoadRegex(rules: Int, times: Int)
}
#endif
