#if Tools
import Foundation

/// The `format`s cheap enough to check on every body: `date-time`, `date` and `uuid`. Others are
/// annotations, as JSON Schema makes them by default.
enum FormatCheck {
    /// What the text should have been, or `nil` when it fits; `shown` is the text as the message prints it.
    static func problem(_ text: String, format: String, shown: @autoclosure () -> String) -> String? {
        switch format {
        case "date-time": return isDateTime(text) ? nil : "expected a date-time (RFC 3339, as 2024-05-01T12:00:00Z), got \(shown())"
        case "date": return isDate(Substring(text)) ? nil : "expected a date (RFC 3339 full-date, as 2024-05-01), got \(shown())"
        case "uuid": return isUUID(text) ? nil : "expected a UUID (as 3f2504e0-4f89-11d3-9a0c-0305e82c3301), got \(shown())"
        default: return nil
        }
    }

    /// `YYYY-MM-DD`, with a real month and day.
    static func isDate(_ text: Substring) -> Bool {
        let scalars = Array(text.unicodeScalars)
        guard scalars.count == 10, scalars[4] == "-", scalars[7] == "-" else { return false }
        guard let year = number(scalars[0..<4]), let month = number(scalars[5..<7]), let day = number(scalars[8..<10]) else { return false }
        guard (1...12).contains(month), day >= 1 else { return false }
        let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
        let days = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1]
        return day <= days
    }

    /// RFC 3339 `date-time`: full-date `T` time, seconds with optional fraction, then `Z` or `±hh:mm`.
    static func isDateTime(_ text: String) -> Bool {
        guard let t = text.firstIndex(where: { $0 == "T" || $0 == "t" }), isDate(text[..<t]) else { return false }
        let time = Array(text[text.index(after: t)...].unicodeScalars)
        guard time.count >= 9, time[2] == ":", time[5] == ":",
              let hour = number(time[0..<2]), let minute = number(time[3..<5]), let second = number(time[6..<8]),
              hour <= 23, minute <= 59, second <= 60 else { return false }
        var i = 8
        if i < time.count, time[i] == "." {
            i += 1
            let start = i
            while i < time.count, ("0"..."9").contains(time[i]) { i += 1 }
            guard i > start else { return false }
        }
        guard i < time.count else { return false }
        if time[i] == "Z" || time[i] == "z" { return i + 1 == time.count }
        guard time[i] == "+" || time[i] == "-", time.count - i == 6, time[i + 3] == ":",
              let offsetHour = number(time[(i + 1)..<(i + 3)]), let offsetMinute = number(time[(i + 4)..<(i + 6)]),
              offsetHour <= 23, offsetMinute <= 59 else { return false }
        return true
    }

    /// 8-4-4-4-12 hexadecimal digits.
    static func isUUID(_ text: String) -> Bool {
        let scalars = Array(text.unicodeScalars)
        guard scalars.count == 36 else { return false }
        for (i, c) in scalars.enumerated() {
            if [8, 13, 18, 23].contains(i) { if c != "-" { return false } } else if !c.properties.isASCIIHexDigit { return false }
        }
        return true
    }

    private static func number(_ digits: ArraySlice<Unicode.Scalar>) -> Int? {
        var value = 0
        for c in digits {
            guard ("0"..."9").contains(c) else { return nil }
            value = value * 10 + Int(c.value - 48)
        }
        return value
    }
}
#endif
