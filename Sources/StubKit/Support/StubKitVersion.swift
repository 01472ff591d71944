/// The one version of StubKit: what `stubkit --version` and `stublint --version` print, what HAR
/// files name as their creator, and the top entry of CHANGELOG.md (a test holds them together).
public enum StubKitVersion {
    /// The version of this library, as released (`0.4.0`).
    public static let current = "0.4.0"
}
