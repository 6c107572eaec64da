module github.com/symbolize-go/symbolize

go 1.26
