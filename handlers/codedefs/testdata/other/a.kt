package demo

typealias Name = String

interface Greeter {
    fun greet(n: Name): String
}

class Hello : Greeter {
    override fun greet(n: Name) = "hi $n"
}

object Registry {
    val items = mutableListOf<String>()
}

fun main() {}
