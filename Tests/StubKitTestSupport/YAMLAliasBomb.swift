/// A "billion laughs" YAML document: a few lines whose anchors and aliases expand exponentially.
public enum YAMLAliasBomb {
    /// `document` followed by `levels` sequences under `key0`, `key1`, …: the first lists `x` ten times
    /// and each next one lists the one before ten times, so the last holds 10^levels scalars.
    public static func text(levels: Int, key: String = "x-bomb", after document: String = "") -> String {
        var text = document + "\(key)0: &\(key)0 [" + Array(repeating: "x", count: 10).joined(separator: ", ") + "]\n"
        for level in 1..<levels {
            text += "\(key)\(level): &\(key)\(level) [" + Array(repeating: "*\(key)\(level - 1)", count: 10).joined(separator: ", ") + "]\n"
        }
        return text
    }
}
