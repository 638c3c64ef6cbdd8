import FormEngine
import Testing
@testable import FormhouseApp

/// Spreadsheet formula injection in CSV exports: text a spreadsheet could run gets a leading `'`,
/// typed numbers do not.
@Suite struct CSVTests {
    @Test func textThatCouldRunAsAFormulaIsNeutralized() {
        for formula in ["=1+1", "+1", "-1", "@SUM(A1)", "\tx", "\rx", "\nx", " =1+1", "  @x", "\n=1+1",
                        "\u{00A0}=1", "\u{3000}=1", "＝1+1", "＋1", "－1", "＠x"] {
            #expect(CSV.neutralized(formula) == "'" + formula, "\(formula.debugDescription)")
            #expect(CSV.cell(.string(formula)) == "'" + formula, "\(formula.debugDescription)")
        }
        for plain in ["", " ", "Ana", "a=b", "1-2", " x=1", "'=1", "(11) 91234-5678"] {
            #expect(CSV.neutralized(plain) == plain, "\(plain.debugDescription)")
        }
    }

    @Test func typedNumbersAndOtherValuesStayAsStored() {
        #expect(CSV.cell(.number(-5)) == "-5")
        #expect(CSV.cell(.number(-12.5)) == "-12.5")
        #expect(CSV.cell(.bool(true)) == "true")
        #expect(CSV.cell(nil) == "")
        #expect(CSV.cell(.array([.string("=x")])) == #"["=x"]"#)
    }

    @Test func rowsQuoteWhatNeedsQuoting() {
        let row = String(decoding: CSV.row(["a", "b,c", "say \"hi\"", "two\nlines", "'=1"]), as: UTF8.self)
        #expect(row == "a,\"b,c\",\"say \"\"hi\"\"\",\"two\nlines\",'=1\r\n")
    }

    @Test func inputsSpelledLikeAFixedColumnGetTheirOwnHeader() {
        #expect(SubmissionExport.header(columns: ["name"]) == ["id", "formVersion", "receivedAt", "name"])
        #expect(SubmissionExport.header(columns: ["id", "receivedAt", "values.id", "x"])
                == ["id", "formVersion", "receivedAt", "values.values.id", "values.receivedAt", "values.id", "x"])
    }
}
