import FormStore
import Foundation

/// RFC 3339 times in UTC with milliseconds (`2026-11-21T07:05:40.123Z`), as every JSON body of the API
/// carries them.
///
/// Written out by hand: `Date.ISO8601FormatStyle` costs microseconds per call on Linux, and every
/// accepted submission formats a time twice (its answer and its webhook envelope).
enum Timestamp {
    static func rfc3339(_ date: Date) -> String {
        // Whole milliseconds, rounded down, as the store keeps them.
        var (days, msOfDay) = date.storedMilliseconds.quotientAndRemainder(dividingBy: 86_400_000)
        if msOfDay < 0 {
            days -= 1
            msOfDay += 86_400_000
        }
        // Four digits hold years 0 to 9999; a time outside them (never the server's clock) is clamped
        // rather than written with a wrong or negative digit.
        if days < -719_528 { return "0000-01-01T00:00:00.000Z" }
        if days > 2_932_896 { return "9999-12-31T23:59:59.999Z" }
        let (year, month, day) = civil(fromDays: days)
        let secondsOfDay = msOfDay / 1000
        // Straight into the string's storage: one allocation, no intermediate array.
        return String(unsafeUninitializedCapacity: 24) { out in
            var at = 0
            func put(_ value: Int64, _ digits: Int) {
                var rest = value
                for index in stride(from: at + digits - 1, through: at, by: -1) {
                    out[index] = UInt8(ascii: "0") + UInt8(truncatingIfNeeded: rest % 10)
                    rest /= 10
                }
                at += digits
            }
            func put(_ byte: Unicode.Scalar) {
                out[at] = UInt8(ascii: byte)
                at += 1
            }
            put(year, 4); put("-"); put(month, 2); put("-"); put(day, 2); put("T")
            put(secondsOfDay / 3600, 2); put(":"); put(secondsOfDay / 60 % 60, 2); put(":"); put(secondsOfDay % 60, 2)
            put("."); put(msOfDay % 1000, 3); put("Z")
            return at
        }
    }

    /// Proleptic Gregorian year, month and day of a day count since 1970-01-01 (Howard Hinnant's
    /// `civil_from_days`).
    /// The date `YYYY-MM-DD` of a day counted from 1970-01-01.
    static func date(day: Int) -> String {
        let (year, month, dayOfMonth) = civil(fromDays: Int64(day))
        func padded(_ value: Int64, _ width: Int) -> String {
            let digits = String(value)
            return String(repeating: "0", count: max(0, width - digits.count)) + digits
        }
        return "\(padded(year, 4))-\(padded(month, 2))-\(padded(dayOfMonth, 2))"
    }

    static func civil(fromDays days: Int64) -> (year: Int64, month: Int64, day: Int64) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let shiftedMonth = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * shiftedMonth + 2) / 5 + 1
        let month = shiftedMonth < 10 ? shiftedMonth + 3 : shiftedMonth - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }
}
