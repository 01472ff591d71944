#if Tools
/// A target of the report: what was aimed at, whether this run met it, and the figures that say so.
struct BenchmarkTarget {
    var name: String
    var met: Bool
    var measured: String
}
#endif
