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
        let (year, month, day) = civil(fromDays: days)
        let secondsOfDay = msOfDay / 1000
        var out: [UInt8] = []
        out.reserveCapacity(24)
        append(year, digits: 4, to: &out)
        out.append(UInt8(ascii: "-"))
        append(month, digits: 2, to: &out)
        out.append(UInt8(ascii: "-"))
        append(day, digits: 2, to: &out)
        out.append(UInt8(ascii: "T"))
        append(secondsOfDay / 3600, digits: 2, to: &out)
        out.append(UInt8(ascii: ":"))
        append(secondsOfDay / 60 % 60, digits: 2, to: &out)
        out.append(UInt8(ascii: ":"))
        append(secondsOfDay % 60, digits: 2, to: &out)
        out.append(UInt8(ascii: "."))
        append(msOfDay % 1000, digits: 3, to: &out)
        out.append(UInt8(ascii: "Z"))
        return String(decoding: out, as: UTF8.self)
    }

    /// Proleptic Gregorian year, month and day of a day count since 1970-01-01 (Howard Hinnant's
    /// `civil_from_days`).
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

    private static func append(_ value: Int64, digits: Int, to out: inout [UInt8]) {
        var divisor: Int64 = 1
        for _ in 1..<digits { divisor *= 10 }
        var rest = value
        while divisor > 0 {
            out.append(UInt8(ascii: "0") + UInt8(truncatingIfNeeded: rest / divisor % 10))
            rest %= divisor
            divisor /= 10
        }
    }
}
