#if Tools
import StubKit

extension SourceValue {
    /// The value of `key` in a dictionary (the first, if repeated).
    package subscript(key: String) -> SourceValue? {
        dictionaryValue?.first { $0.key == key }?.value
    }
}
#endif
