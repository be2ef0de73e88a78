module github.com/hookhost/hookhost/go/hookhost

go 1.19
