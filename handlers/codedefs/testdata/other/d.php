<?php
namespace App;

interface Named { public function name(): string; }

trait Greets {
    public function greet() { return "hi"; }
}

class User implements Named {
    use Greets;
    public function name(): string { return "u"; }
}

function helper() {}
